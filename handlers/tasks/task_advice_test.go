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

// TestTaskAdviceOfUnusedCards: a task whose one RTX 4090 never went above 5 % did not use it.
// Its page says so in both languages and advises no count or spec: not "1 of 1 cards never
// went above 5 %" followed by "it was sized right", which contradicted itself.
func TestTaskAdviceOfUnusedCards(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	member := s.Member("alice", "vision")
	s.SetNow(webtest.T0.Add(-3 * time.Hour))
	n := s.Register(webtest.Node("n2").InPool("4090").Cards("NVIDIA GeForce RTX 4090", 24564, 1))
	ctx := t.Context()
	if err := s.Store.SetPrice(ctx, models.Price{Spec: "RTX4090-24G", FromMonth: "2026-01", RateFen: 420}, webtest.T0.Add(-3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	tk := s.Create(webtest.Task("holder").GPUs(1).Spec("RTX4090-24G").Ready(), webtest.T0.Add(-3*time.Hour))
	start := webtest.T0.Add(-2 * time.Hour)
	s.Place(tk, start, webtest.UUIDOf("n2", 0))
	for m := time.Duration(0); m < 2*time.Hour; m += time.Minute {
		s.SetNow(start.Add(m))
		s.PostSamples(n.Token, webtest.Sample(webtest.UUIDOf("n2", 0), start.Add(m), 1, 400))
	}
	s.SetNow(webtest.T0)
	if err := s.Store.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: webtest.T0}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.RollUp(ctx, webtest.T0.Add(time.Hour), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en":    {"Its 1 RTX4090-24G card never went above 5 %: the task did not use it.", "No card count or spec is advised", "they cost ¥4.20 an hour"},
		"zh-CN": {"它的 1 张 RTX4090-24G 卡利用率从未超过 5%：任务没有用到它。", "不给出卡数或卡型建议", "每小时花费 ¥4.20"},
	} {
		doc := webtest.Parse(t, s.Get("/tasks/"+strconv.FormatInt(tk.ID, 10), append(webtest.Bearer(member), "Accept-Language", lang)...).Body.String())
		box := doc.Find(`[data-testid=task-advice]`)
		if kind, _ := box.Attr("data-kind"); kind != "unused" {
			t.Errorf("%s: advice kind = %q, want unused", lang, kind)
		}
		text := strings.Join(strings.Fields(box.Text()), " ")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: advice = %q, want it to say %q", lang, text, w)
			}
		}
		for _, never := range []string{"sized right", "取卡合适", "of 1 cards", "Next time ask for"} {
			if strings.Contains(text, never) {
				t.Errorf("%s: advice = %q, says %q", lang, text, never)
			}
		}
	}
}
