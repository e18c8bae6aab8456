package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"kashi/api"
)

const (
	// defaultHealthGrace is how long a service replica may take to load its model before
	// its first healthy answer; failed probes before then do not count.
	defaultHealthGrace = 10 * time.Minute
	// healthFailures is how many probes in a row a replica may fail before it is restarted.
	healthFailures = 3
)

// health is a service replica's health probe: where it answers, whether it has answered
// healthy since this agent started or adopted it, and its failures in a row since.
type health struct {
	url      string
	answered bool
	failures int
}

// healthURL is where a replica answers its health probe on this node: its metrics port on
// the loopback, at the assignment's health path; "" for no probe.
func healthURL(as api.Assignment) string {
	if as.MetricsPort <= 0 || as.HealthPath == "" {
		return ""
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", as.MetricsPort, as.HealthPath)
}

// probeHealth starts probing every service replica that has a health path (see askPages)
// and returns a function that waits for the answers and acts on them: a replica that failed
// healthFailures probes in a row, once it has answered healthy or its grace from start is
// over, is stopped to start again (see exited). The probes run while the caller scrapes the
// metrics pages, so a tick waits for the slower of the two, not both.
func (a *Agent) probeHealth(ctx context.Context) (act func(now time.Time)) {
	ids, urls := a.replicaPages(func(t *task) string {
		if t.health == nil {
			return ""
		}
		return t.health.url
	})
	wait := askPages(ctx, a.cfg.SampleInterval, urls, func(ctx context.Context, url string) bool {
		return probe(ctx, a.cfg.HTTP, url)
	})
	return func(now time.Time) {
		healthy := wait()
		for i, id := range ids {
			t := a.tasks[id]
			if t == nil || t.stopping { // exited or stopped while probed
				continue
			}
			h := t.health
			if healthy[i] {
				h.answered, h.failures = true, 0
				continue
			}
			h.failures++
			if h.failures < healthFailures || (!h.answered && now.Sub(t.startedAt) < a.cfg.HealthGrace) {
				continue
			}
			t.unhealthy = true
			a.stop(id, t, fmt.Sprintf("health check failed %d times in a row at %s", h.failures, h.url))
		}
	}
}

// probe asks url once and reports whether it answered 2xx.
func probe(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode >= 200 && resp.StatusCode < 300
}
