// A server with something on every page, for the tests that open them all.

package webtest

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
	"kashi/scaler"
	"kashi/scheduler"
	"kashi/serving"
)

// SeededPages is a server with something to show on every page, and the paths of every page
// an admin can open (one unknown task, for the error page). Its pool "a100" was scaled by the
// real scaling loop, so the pools page shows scaling events and reasons it did not act; the
// project "vision" has a card limit that one task waits on, a running task, a cancelled one,
// a quota request and notifications.
func SeededPages(t *testing.T) (PoolServer, []string) {
	t.Helper()
	ps := NewPoolServer(t)
	s, ctx := ps.Server, context.Background()
	s.Projects("vision", "nlp")
	vision, err := s.Store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 4,
		BudgetCardHours: 100, StartsAt: T0.AddDate(0, 0, -1), EndsAt: T0.AddDate(0, 1, 0), ContractGuaranteedGPUs: 2}, T0.Add(-3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	n := s.Register(Node("n1").Cards(A100Name, A100MiB, 4))
	run := Task("train").Ready().GPUs(3)
	run.Nt.Owner = "tester"
	tk := s.Create(run, T0.Add(-2*time.Hour))
	s.Place(tk, T0.Add(-time.Hour), UUIDOf("n1", 0), UUIDOf("n1", 1), UUIDOf("n1", 2))
	if err := s.Store.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportRunning, TS: T0}, T0); err != nil {
		t.Fatal(err)
	}
	blocked := Task("big").Ready().GPUs(8)
	blocked.Nt.Owner = "tester"
	big := s.Create(blocked, T0.Add(-30*time.Minute))
	s.Create(Task("waits").GPUs(2), T0)
	gone := s.Create(Task("gone").Ready(), T0)
	if err := s.Store.CancelTask(ctx, gone.ID, "tester", T0); err != nil {
		t.Fatal(err)
	}
	tester, err := s.Store.UserByName(ctx, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.CreateQuotaRequest(ctx, tester, vision.ID, "A100-80G", models.RequestLimit,
		models.QuotaChange{MaxGPUs: 11}, "big waits", T0); err != nil {
		t.Fatal(err)
	}
	for i := range 7 { // demand for seven more nodes of the pool
		s.Create(Task("wide-"+strconv.Itoa(i)).Of("nlp").Spec("A100-80G").Ready().GPUs(8), T0.Add(-50*time.Minute))
	}
	tpl, err := s.Store.CreateTemplate(ctx, models.NewTemplate{ProjectID: vision.ID, Name: "nightly", Body: models.TemplateBody{
		GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"eval"}}}, "tester", models.DefaultTaskLimits, T0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 22 * * 1-5", TimeZone: "Asia/Shanghai",
		Overlap: "skip", StartDeadlineS: 3600, Owner: "tester"}, T0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Store.RaiseAlert(ctx, models.AlertInput{Kind: models.AlertGPUMemory, Subject: "g0", TaskID: tk.ID, NodeID: n.ID,
		Code: "gpu_memory", Params: []string{strconv.FormatInt(tk.ID, 10), "train", "vision", "n1", "0", "80000", "81920", "97", "95"}}, T0); err != nil {
		t.Fatal(err)
	}
	seedService(t, s, n, UUIDOf("n1", 3))
	scaleFor(t, ps)
	id := func(tk models.Task) string { return strconv.FormatInt(tk.ID, 10) }
	tplID := strconv.FormatInt(tpl.ID, 10)
	return ps, []string{"/?view=grid", "/gpus/" + UUIDOf("n1", 0), "/nodes/" + strconv.FormatInt(n.ID, 10), "/projects/" + strconv.FormatInt(vision.ID, 10) + "/templates", "/templates/" + tplID, "/queue?template=" + tplID,
		"/", "/queue", "/tasks", "/tasks/" + id(tk), "/tasks/" + id(big), "/tasks/" + id(gone),
		"/tasks/999999", "/projects", "/projects?project=vision&spec=A100-80G&kind=limit&value=11&task=" + id(big),
		"/approvals", "/audit", "/tokens", "/pools", "/pools/h800/edit", "/pools/a100/edit", "/calibrate", "/alerts",
		"/notifications", "/bills", "/bills/vision/2026-03", "/reports", "/prices", "/people", "/account", "/models"}
}

// scaleFor runs the real scaling loop over ps's pool "a100" (at most 6 nodes) on a simulated
// cloud: demand for 8 nodes makes it grow to its maximum and say why not further, the next
// tick finds it in cooldown, and the machines that never boot are given up.
func scaleFor(t *testing.T, ps PoolServer) {
	t.Helper()
	now := T0.Add(-40 * time.Minute)
	clock := func() time.Time { return now }
	keys := 0
	demand := func(ctx context.Context, at time.Time) (scheduler.Snapshot, scheduler.Plan, error) {
		return ps.Sched.Loop.QueuePlan(ctx, at)
	}
	sc := scaler.New(ps.Store, scaler.Config{Providers: map[string]kfleet.Provider{"sim": sim.New(sim.Options{Now: clock, BootLatency: time.Hour})},
		Queue: demand, Now: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewKey: func(pool string) string { keys++; return pool + "-k" + strconv.Itoa(keys) }})
	for _, step := range []time.Duration{0, time.Minute, 20 * time.Minute, 18 * time.Minute} {
		now = now.Add(step)
		if _, err := sc.RunOnce(context.Background(), now); err != nil {
			t.Fatalf("scaling at %s: %v", now, err)
		}
	}
}

// seedService runs a service of one replica on the card uuid of node n, with one scrape of
// its page stored: the Models page has a line.
func seedService(t *testing.T, s *Server, n Registered, uuid string) {
	t.Helper()
	ctx := context.Background()
	nt := Task("qwenbot").Ready().Nt
	nt.Owner, nt.Kind = "tester", models.TaskKindService
	nt.Service = models.ServiceSpec{Model: "qwen2.5-7b-instruct", MetricsPort: 8000}
	sv, _, err := s.Store.CreateTask(ctx, nt, models.DefaultTaskLimits, T0.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	s.Place(sv, T0.Add(-2*time.Hour), uuid)
	ttft, err := serving.NewHistogram([]float64{0.05, 0.1, 0.25, 0.5}, []uint64{40, 300, 380, 398, 400}, 48)
	if err != nil {
		t.Fatal(err)
	}
	r := models.ServiceReport{TaskID: sv.ID, TS: T0.Add(-time.Minute), Served: serving.Snapshot{Server: serving.VLLM,
		Model: nt.Service.Model, Requests: 400, PromptTokens: 320000, GenerationTokens: 96000, TTFT: ttft}}
	if err := s.Store.AddServiceReports(ctx, n.ID, []models.ServiceReport{r}, T0); err != nil {
		t.Fatal(err)
	}
}
