package web_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"kashi/metrics"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestQuotaInUseAgrees: a project's cards in use against its limit read the same on every
// page, the API and /metrics: the cards its running tasks' allocations hold, as the
// scheduler admits against them, never above the limit. The world is one where the other
// counts differ from the allocations: a task of any spec runs on an H800 beside the
// project's two A100 cards (the approvals page used to count it against the A100 limit:
// "3 of 2"), and the board's snapshot is from before a task ended and another started (the
// projects and task pages used to count the board's cards: 1, with the task page then
// seeing no limit in the way).
func TestQuotaInUseAgrees(t *testing.T) {
	ctx := context.Background()
	store := modelstest.SQLite(t, models.Options{BoardLag: time.Hour})
	s := webtest.NewServerOn(t, store, webtest.TestCfg())
	s.Projects("vision")
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	a100 := s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
	s.Register(webtest.Node("h1").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 2))
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 2,
		BudgetCardHours: 1000, StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(1, 0, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	member, err := s.Store.CreateUser(ctx, "member", "pw-member", models.RoleUser, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	s.Store.SetMember(ctx, vision.ID, member.ID, models.ProjectRoleMember)

	// A task held a card and ended after the board was read; two tasks hold the project's
	// cards now: two A100s, and an H800 taken by a task of any spec.
	early := s.Create(webtest.Task("early").Spec("A100-80G").Ready(), webtest.T0.Add(-4*time.Hour))
	s.Place(early, webtest.T0.Add(-3*time.Hour), webtest.UUIDOf("n1", 3))
	s.Get("/projects")
	if err := s.Store.ReportTaskStatus(ctx, a100.ID, early.ID, models.TaskReport{State: models.ReportExited,
		TS: webtest.T0.Add(-150 * time.Minute)}, webtest.T0.Add(-150*time.Minute)); err != nil {
		t.Fatal(err)
	}
	train := s.Create(webtest.Task("train").Spec("A100-80G").GPUs(2).Ready(), webtest.T0.Add(-2*time.Hour))
	s.Place(train, webtest.T0.Add(-2*time.Hour), webtest.UUIDOf("n1", 0), webtest.UUIDOf("n1", 1))
	anySpec := s.Create(webtest.Task("probe").Ready(), webtest.T0.Add(-2*time.Hour))
	s.Place(anySpec, webtest.T0.Add(-2*time.Hour), webtest.UUIDOf("h1", 0))
	waiting := s.Create(webtest.Task("eval").Spec("A100-80G").Ready(), webtest.T0.Add(-time.Hour))
	if _, err := s.Store.CreateQuotaRequest(ctx, member, vision.ID, "A100-80G", models.RequestLimit,
		models.QuotaChange{MaxGPUs: 3}, "eval beside training", webtest.T0.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	const want, limit = 2, 2 // the allocations: train's two A100 cards

	// The API.
	type quota struct {
		Spec      string
		InUseGPUs int `json:"in_use_gpus"`
		LimitGPUs int `json:"limit_gpus"`
	}
	projects := webtest.Decode[[]struct {
		Name   string
		Quotas []quota
	}](t, s.Get("/api/v1/projects"))
	for _, p := range projects {
		if p.Name == "vision" && (len(p.Quotas) != 1 || p.Quotas[0].InUseGPUs != want || p.Quotas[0].LimitGPUs != limit) {
			t.Errorf("GET /api/v1/projects: vision's quotas %+v, want %d in use of %d", p.Quotas, want, limit)
		}
	}
	// The projects page.
	doc := webtest.Parse(t, s.Get("/projects").Body.String())
	if got := oneLine(doc.Find(`[data-testid=quota-row][data-spec=A100-80G] [data-testid=quota-in-use]`).Text()); got != "2 in use of 2" {
		t.Errorf("/projects: A100 quota in use %q, want %q", got, "2 in use of 2")
	}
	// The approvals page's context of the pending request.
	doc = webtest.Parse(t, s.Get("/approvals").Body.String())
	if got := oneLine(doc.Find(`[data-testid=ctx-use-now]`).Text()); got != "2 of 2 GPUs" {
		t.Errorf("/approvals: in use now %q, want %q", got, "2 of 2 GPUs")
	}
	// The waiting task's page: the limit is in its way at 2 in use.
	doc = webtest.Parse(t, s.Get("/tasks/"+webtest.IDStr(waiting.ID)).Body.String())
	if got, wantText := oneLine(doc.Find(`[data-testid=task-quota]`).Text()), "in use 2 + asks 1 = 3 > limit 2"; !strings.Contains(got, wantText) {
		t.Errorf("/tasks/%d: quota panel %q, want it to say %q", waiting.ID, got, wantText)
	}
	// /metrics: the project's cards by spec.
	c := metrics.New(s.Store, s.Sched.Queue, metrics.Config{Now: s.Clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	wantMetrics := `
# HELP kashi_project_gpus_held GPUs held by running tasks, by project and spec, as the scheduler counts them against quotas.
# TYPE kashi_project_gpus_held gauge
kashi_project_gpus_held{project="vision",spec="A100-80G"} 2
kashi_project_gpus_held{project="vision",spec="H800-80G"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(wantMetrics), "kashi_project_gpus_held"); err != nil {
		t.Errorf("/metrics: %v", err)
	}
}

// oneLine is text with its runs of white space made single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
