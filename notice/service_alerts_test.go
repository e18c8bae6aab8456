package notice_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/serving"
)

// TestCheckServices: a service whose TTFT p95 is over its target raises service-ttft, one
// whose replica stopped answering after the grace raises service-down, one a day without a
// request raises service-idle; each resolves when its cause ends.
func TestCheckServices(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	node := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
	slow := modelstest.Task("nlp", "chat").Service("qwen", 8000, 200).Create(t, s, t0)
	quiet := modelstest.Task("nlp", "spare").Service("llama", 9000, 0).Create(t, s, t0)
	modelstest.Run(t, s, slow, node, t0)
	modelstest.Run(t, s, quiet, node, t0)
	kinds := func(at time.Time) []string {
		if err := notice.CheckServices(ctx, s, at); err != nil {
			t.Fatal(err)
		}
		as, _ := s.Alerts(ctx, models.AlertFilter{OpenOnly: true})
		var out []string
		for _, a := range as {
			out = append(out, a.Kind+" "+a.Subject)
		}
		slices.Sort(out)
		return out
	}
	report := func(task models.Task, at time.Time, counts []uint64, failure string) {
		r := models.ServiceReport{TaskID: task.ID, TS: at, Error: failure}
		if failure == "" {
			h, err := serving.NewHistogram([]float64{0.1, 0.5}, counts, 1)
			if err != nil {
				t.Fatal(err)
			}
			r.Served = serving.Snapshot{Server: serving.VLLM, Requests: float64(counts[len(counts)-1]), TTFT: h}
		}
		if err := s.AddServiceReports(ctx, node.ID, []models.ServiceReport{r}, at); err != nil {
			t.Fatal(err)
		}
	}
	// 10 requests, 2 of them above 0.1 s: p95's rank 9.5 lies 1.5/2 into (0.1, 0.5]: 400 ms,
	// above the 200 ms target.
	at := t0.Add(30 * time.Minute)
	report(slow, at, []uint64{8, 10, 10}, "")
	if got, want := kinds(at), []string{"service-ttft service 1"}; !slices.Equal(got, want) {
		t.Errorf("alerts = %q, want %q", got, want)
	}
	// A quarter of an hour later the window holds 20 quick requests only; the spare service's
	// page stopped answering.
	at = at.Add(16 * time.Minute)
	report(slow, at, []uint64{20, 20, 20}, "")
	report(quiet, at, nil, "connection refused")
	if got, want := kinds(at), []string{"service-down service 2"}; !slices.Equal(got, want) {
		t.Errorf("alerts = %q, want %q", got, want)
	}
	// A day after it started, the spare service answers again but served nothing all day.
	at = t0.Add(ServiceDay + time.Minute)
	report(slow, at, []uint64{5, 5, 5}, "")
	report(quiet, at, []uint64{0, 0, 0}, "")
	if got, want := kinds(at), []string{"service-idle service 2"}; !slices.Equal(got, want) {
		t.Errorf("alerts = %q, want %q", got, want)
	}
}

// ServiceDay is notice.ServiceIdleFor.
const ServiceDay = notice.ServiceIdleFor
