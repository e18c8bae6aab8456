package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// TestTaskAdvice: a task that held 2 A100s, one of them never busy and the other at 12 GiB,
// gets advice for its next run once it ended — one RTX 4090 — in its JSON and on its page,
// with the saving at the project's prices; while it ran it got none.
func TestTaskAdvice(t *testing.T) {
	s := newServer(t)
	s.projects("vision")
	member := s.member("alice", "vision")
	s.setNow(t0.Add(-3 * time.Hour))
	n1 := s.register(node("n1").inPool("a100").cards(a100Name, a100MiB, 2))
	s.register(node("n2").inPool("4090").cards("NVIDIA GeForce RTX 4090", 24564, 2))
	ctx := t.Context()
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.store.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, t0.Add(-3*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	tk := s.create(task("eval").gpus(2).spec("A100-80G").ready(), t0.Add(-3*time.Hour))
	start := t0.Add(-2 * time.Hour)
	s.place(tk, start, uuidOf("n1", 0), uuidOf("n1", 1))
	for m := time.Duration(0); m < 2*time.Hour; m += time.Minute {
		s.setNow(start.Add(m))
		s.postSamples(n1.Token, sample(uuidOf("n1", 0), start.Add(m), 60, 12*1024), sample(uuidOf("n1", 1), start.Add(m), 0, 500))
	}
	s.setNow(t0)
	id := strconv.FormatInt(tk.ID, 10)
	advice := func() *struct {
		Kind string `json:"kind"`
		Spec string `json:"spec"`
		GPUs int    `json:"gpus"`
	} {
		w := s.get("/api/v1/tasks/"+id, bearer(member)...)
		if w.Code != http.StatusOK {
			t.Fatalf("GET task = %d %s", w.Code, w.Body)
		}
		return decode[struct {
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
	if err := s.store.ReportTaskStatus(ctx, n1.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: t0}, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.store.RollUp(ctx, t0.Add(time.Hour), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	a := advice()
	if a == nil || a.Kind != "smaller-fewer" || a.Spec != "RTX4090-24G" || a.GPUs != 1 {
		t.Fatalf("advice = %+v, want one RTX4090-24G instead of two A100s", a)
	}
	doc := parse(t, s.get("/tasks/"+id, bearer(member)...).Body.String())
	if got, want := doc.Find(`[data-testid=advice-ask]`).Text(), "Next time ask for 1 × RTX4090-24G, at 14 % of the cost. That saves ¥25.80 per hour at today's prices."; !strings.Contains(strings.Join(strings.Fields(got), " "), want) {
		t.Errorf("advice on the page = %q, want %q", got, want)
	}
}
