// The advice tests' world: a template run on cards that are busy or idle, priced per spec.

package webtest

import (
	"testing"
	"time"

	"kashi/models"
)

// AdviceWorld is a server with vision's template "eval" (2 × A100-80G), A100 and 4090 nodes
// and prices, and run, which runs the template once from start for an hour on n1's two
// cards, card busy in use at peakGiB, the other idle, then rolls the readings up.
func AdviceWorld(t *testing.T) (s *Server, tpl models.TaskTemplate, member string, run func(start time.Time, busy int, peakGiB int64)) {
	t.Helper()
	s = NewServer(t)
	s.Projects("vision")
	member = s.Member("alice", "vision")
	ctx := t.Context()
	s.SetNow(T0.Add(-6 * time.Hour))
	n1 := s.Register(Node("n1").InPool("a100").Cards(A100Name, A100MiB, 2))
	s.Register(Node("n2").InPool("4090").Cards("NVIDIA GeForce RTX 4090", 24564, 2))
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.Store.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, T0.Add(-6*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	tpl, err := s.Store.CreateTemplate(ctx, models.NewTemplate{ProjectID: vision.ID, Name: "eval", Body: models.TemplateBody{
		GPUs: 2, Spec: "A100-80G", Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"eval"}}},
		"tester", models.DefaultTaskLimits, T0.Add(-6*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	run = func(start time.Time, busy int, peakGiB int64) {
		b := Task("eval").GPUs(2).Spec("A100-80G").Ready()
		b.Nt.TemplateID, b.Nt.TemplateVersion = tpl.ID, tpl.Version
		tk := s.Create(b, start.Add(-time.Minute))
		s.Place(tk, start, UUIDOf("n1", 0), UUIDOf("n1", 1))
		for m := time.Duration(0); m < time.Hour; m += time.Minute {
			s.SetNow(start.Add(m))
			mem := [2]int64{500, 500}
			util := [2]int{0, 0}
			mem[busy], util[busy] = peakGiB*1024, 60
			s.PostSamples(n1.Token, Sample(UUIDOf("n1", 0), start.Add(m), util[0], mem[0]), Sample(UUIDOf("n1", 1), start.Add(m), util[1], mem[1]))
		}
		end := start.Add(time.Hour)
		if err := s.Store.ReportTaskStatus(ctx, n1.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
			t.Fatal(err)
		}
		if err := s.Store.RollUp(ctx, end.Add(time.Hour), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	return s, tpl, member, run
}
