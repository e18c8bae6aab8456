package tasks_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestTaskAdvice: a task that held 2 A100s, one of them never busy and the other at 12 GiB,
// gets advice for its next run once it ended — one RTX 4090 — in its JSON and on its page,
// with the saving at the project's prices; while it ran it got none.
func TestTaskAdvice(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	member := s.Member("alice", "vision")
	s.SetNow(webtest.T0.Add(-3 * time.Hour))
	n1 := s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	s.Register(webtest.Node("n2").InPool("4090").Cards("NVIDIA GeForce RTX 4090", 24564, 2))
	ctx := t.Context()
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.Store.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, webtest.T0.Add(-3*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	tk := s.Create(webtest.Task("eval").GPUs(2).Spec("A100-80G").Ready(), webtest.T0.Add(-3*time.Hour))
	start := webtest.T0.Add(-2 * time.Hour)
	s.Place(tk, start, webtest.UUIDOf("n1", 0), webtest.UUIDOf("n1", 1))
	for m := time.Duration(0); m < 2*time.Hour; m += time.Minute {
		s.SetNow(start.Add(m))
		s.PostSamples(n1.Token, webtest.Sample(webtest.UUIDOf("n1", 0), start.Add(m), 60, 12*1024), webtest.Sample(webtest.UUIDOf("n1", 1), start.Add(m), 0, 500))
	}
	s.SetNow(webtest.T0)
	id := strconv.FormatInt(tk.ID, 10)
	advice := func() *struct {
		Kind string `json:"kind"`
		Spec string `json:"spec"`
		GPUs int    `json:"gpus"`
	} {
		w := s.Get("/api/v1/tasks/"+id, webtest.Bearer(member)...)
		if w.Code != http.StatusOK {
			t.Fatalf("GET task = %d %s", w.Code, w.Body)
		}
		return webtest.Decode[struct {
			Advice *struct {
				Kind string `json:"kind"`
				Spec string `json:"spec"`
				GPUs int    `json:"gpus"`
			} `json:"advice"`
		}](t, w).Advice
	}
	if a := advice(); a != nil {
		t.Errorf("advice while running = %+v, want none", a)
	}
	if err := s.Store.ReportTaskStatus(ctx, n1.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: webtest.T0}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.RollUp(ctx, webtest.T0.Add(time.Hour), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	a := advice()
	if a == nil || a.Kind != "smaller-fewer" || a.Spec != "RTX4090-24G" || a.GPUs != 1 {
		t.Fatalf("advice = %+v, want one RTX4090-24G instead of two A100s", a)
	}
	doc := webtest.Parse(t, s.Get("/tasks/"+id, webtest.Bearer(member)...).Body.String())
	if got, want := doc.Find(`[data-testid=advice-ask]`).Text(), "Next time ask for 1 × RTX4090-24G, at 14 % of the cost. That saves ¥25.80 per hour at today's prices."; !strings.Contains(strings.Join(strings.Fields(got), " "), want) {
		t.Errorf("advice on the page = %q, want %q", got, want)
	}
}
