package agent

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"kashi/api"
	"kashi/serving"
)

// scraped is what the agent keeps of a service replica: where its model server's metrics
// page is, and that page's last reading (nil before the first).
type scraped struct {
	url  string
	last *serving.Snapshot
	// restarted is set when the agent started the replica again, until a reading says so.
	restarted bool
}

// metricsURL is where a replica's model server serves its metrics page on this node: its
// own port on the loopback (a container publishes it there).
func metricsURL(as api.Assignment) string {
	if as.MetricsPort <= 0 {
		return ""
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", as.MetricsPort, as.MetricsPath)
}

// maxScrapeError bounds the error text a failed scrape reports.
const maxScrapeError = 200

// scrapeServices reads the metrics page of every service replica the agent runs and returns
// what each counted since its last reading (all the page's models added up), or why the page
// could not be read. A replica this agent started counts from zero (its server started with
// it); one adopted after a restart counts from its first reading here, which reports nothing
// but that it answered. The pages are read at once (see askPages).
func (a *Agent) scrapeServices(ctx context.Context, now time.Time) []api.ServingReport {
	ids, urls := a.replicaPages(func(t *task) string {
		if t.serving == nil {
			return ""
		}
		return t.serving.url
	})
	type result struct {
		snaps []serving.Snapshot
		err   error
	}
	results := askPages(ctx, a.cfg.SampleInterval, urls, func(ctx context.Context, url string) (r result) {
		r.snaps, r.err = serving.Scrape(ctx, a.cfg.HTTP, url)
		return r
	})()
	out := make([]api.ServingReport, 0, len(ids))
	for i, id := range ids {
		t := a.tasks[id]
		if err := results[i].err; err != nil {
			out = append(out, api.ServingReport{TaskID: id, TS: now, Error: errorText(err)})
			continue
		}
		cur := serving.Merge(results[i].snaps...)
		prev := serving.Snapshot{}
		if t.serving.last != nil {
			prev = *t.serving.last
		} else if t.adopted {
			prev = cur
		}
		t.serving.last = &cur
		r := servingReport(id, now, prev, cur)
		r.Restarted = r.Restarted || t.serving.restarted
		t.serving.restarted = false
		out = append(out, r)
	}
	return out
}

// servingReport is the wire form of what a replica counted between two readings.
func servingReport(id int64, now time.Time, prev, cur serving.Snapshot) api.ServingReport {
	d := serving.Delta(prev, cur)
	return api.ServingReport{TaskID: id, TS: now, Server: string(d.Server), Model: d.Model,
		Restarted: serving.Restarted(prev, cur), Requests: d.Requests, PromptTokens: d.PromptTokens,
		GenerationTokens: d.GenerationTokens, Running: d.Running, TTFT: wireHistogram(d.TTFT), E2E: wireHistogram(d.E2E)}
}

func wireHistogram(h *serving.Histogram) *api.Histogram {
	if h == nil {
		return nil
	}
	return &api.Histogram{Bounds: h.Finite(), Counts: h.Counts, Sum: h.Sum}
}

// errorText is err's text cut to maxScrapeError bytes on a rune boundary.
func errorText(err error) string {
	s := err.Error()
	if len(s) <= maxScrapeError {
		return s
	}
	s = s[:maxScrapeError]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
