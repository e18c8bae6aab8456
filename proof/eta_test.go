package proof

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kashi/api"
	"kashi/replay"
)

// The ETA reading's settings.
const (
	// etaSpeed is the demo clock's speed as `kashi serve --demo` runs by default.
	etaSpeed = 60
	// etaEvery is how often, in real time, the queue is read: two minutes of the demo's clock.
	etaEvery = 2 * time.Second
)

// etaSeen is what the reading knows of one task that waited.
type etaSeen struct {
	ID      int64  `json:"id"`
	Project string `json:"project"`
	Lane    string `json:"lane"`
	GPUs    int    `json:"gpus"`
	Spec    string `json:"spec"`
	// Reason and Detail are the wait's when the task was first seen waiting, then when its
	// first estimate was shown.
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	replay.ETAShown
	// gone: the task left the queue; its start is then read once.
	gone, read bool
}

// TestETA reads the demo's queue from outside, as people do, for -eta-minutes of real time:
// GET /api/v1/queue every etaEvery as admin, remembering each task's first estimate of start
// (p50 and p90) once it waits for the scheduler (not just submitted, nor waiting for its
// data) and, once it leaves the queue, its actual start from
// GET /api/v1/tasks/{id}; then it scores the estimates as replay.ScoreETAs does and logs the
// score. With -eta-out it writes every task read, one JSON object a line. It asserts
// nothing: BENCHMARKS.md records the score.
func TestETA(t *testing.T) {
	if *etaMinutes == 0 {
		t.Skip("asked for with -eta-minutes N")
	}
	ctx := context.Background()
	addr := freeAddr(t)
	logPath := filepath.Join(t.TempDir(), "serve.log")
	defer keepLog(t, logPath)
	srv := startArgs(t, addr, logPath, "serve", "--demo", "--db", sqliteDB(t).DSN, "--addr", addr, "--join-token", joinToken,
		"--demo-speed", fmt.Sprint(etaSpeed), "--log-level", "info", "--lang", "en")
	defer srv.stop(t)
	if err := srv.waitHealthy(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	w := &witness{base: "http://" + addr, sessions: map[string]*http.Client{}}
	c, err := login(w.base, "admin")
	if err != nil {
		t.Fatal(err)
	}
	w.sessions["admin"] = c
	seen := map[int64]*etaSeen{}
	var last time.Time
	end := time.Now().Add(time.Duration(*etaMinutes * float64(time.Minute)))
	for time.Now().Before(end) {
		var q api.Queue
		if err := w.getJSON(ctx, "admin", "/api/v1/queue", &q); err != nil {
			t.Fatal(err)
		}
		last = q.Now
		in := map[int64]bool{}
		for _, e := range q.Tasks {
			in[e.ID] = true
			switch e.Reason {
			case api.ReasonStarting, api.ReasonNew, api.ReasonDataNotReady:
				continue // not waiting for the scheduler (yet)
			}
			s, ok := seen[e.ID]
			if !ok {
				s = &etaSeen{ID: e.ID, Project: e.Project, Lane: e.Lane, GPUs: e.GPUs, Spec: e.Spec,
					Reason: string(e.Reason), Detail: e.ReasonDetail}
				seen[e.ID] = s
			}
			if s.P50.IsZero() && e.ETAP50 != nil {
				s.At, s.P50, s.Reason, s.Detail = q.Now, *e.ETAP50, string(e.Reason), e.ReasonDetail
				if e.ETAP90 != nil {
					s.P90 = *e.ETAP90
				}
			}
		}
		for _, s := range seen {
			if in[s.ID] || s.read {
				continue
			}
			var task api.Task
			if err := w.getJSON(ctx, "admin", fmt.Sprintf("/api/v1/tasks/%d", s.ID), &task); err != nil {
				t.Fatal(err)
			}
			s.read = true
			if task.StartedAt != nil {
				s.Start = *task.StartedAt
			}
			s.gone = task.StartedAt == nil // cancelled or lost before it started: not scored
		}
		sleepCtx(ctx, etaEvery)
	}
	ids := make([]int64, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var shown []replay.ETAShown
	var lines []byte
	for _, id := range ids {
		s := seen[id]
		if s.gone {
			continue
		}
		shown = append(shown, s.ETAShown)
		b, _ := json.Marshal(s)
		lines = append(append(lines, b...), '\n')
	}
	if *etaOut != "" {
		if err := os.WriteFile(*etaOut, lines, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	score := replay.ScoreETAs(shown, last)
	t.Logf("%d tasks waited; scored %d (%d never estimated): first p50 within ±25 %% %.0f %%, started by p90 %.0f %%, median estimate/actual %.2f",
		len(shown), score.Tasks, score.Unknown, 100*score.P50Within, 100*score.ByP90, score.MedianRatio)
}
