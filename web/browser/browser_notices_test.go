package browser_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// TestBrowserLeadNotices walks a project lead's notifications in headless Chromium, in
// English and Chinese, at 1600 px and on a 390×844 phone: a member's idle task with who
// submitted it and the keep and release buttons, and one weekly report for each of the three
// projects she leads, under its project's name; keep answers it for the member. No page
// scrolls sideways. Screenshots go to KASHI_SCREENSHOTS.
func TestBrowserLeadNotices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 9, 2, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := modelstest.SQLite(t, models.Options{})
	node := modelstest.Node("gpu-a100-long-hostname-01").Pool("a100").A100s(2).Register(t, s, now.Add(-3*time.Hour))
	lead, _ := s.CreateUser(ctx, "lead", "pw-lead", models.RoleUser, now)
	for _, name := range []string{"vision", "nlp", "speech"} {
		p, _ := s.EnsureProject(ctx, name, now)
		s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
		key := "weekly-report:2026-W10:" + strconv.FormatInt(p.ID, 10)
		if _, err := s.NotifyProject(ctx, p.ID, key, "weekly-report", "Project "+name+", week 2026-W10", now); err != nil {
			t.Fatal(err)
		}
	}
	task := modelstest.Task("vision", "finetune-llama-70b-long-name").Owner("alice").Create(t, s, now.Add(-3*time.Hour))
	modelstest.Run(t, s, task, node, now.Add(-3*time.Hour))
	if err := s.SetReclaimNotice(ctx, task.ID, now.Add(-5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NotifyOwnerAndLeads(ctx, task.ID, "idle-notice:"+strconv.FormatInt(task.ID, 10)+":1", "idle-notice", "idle", now); err != nil {
		t.Fatal(err)
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: clock, NodeStaleAfter: 24 * time.Hour})
	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: 24 * time.Hour}, clock)
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)

	if err := chromedp.Do(b.ctx, b.login("lead", "pw-lead")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "notices", []shotPage{{"notifications", "/notifications", `[data-testid=idle-task] [data-testid=keep]`}})
	projects, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-kind=weekly-report] [data-testid=note-project]')].map(e => e.textContent)`))
	if err != nil || len(projects) != 3 {
		t.Errorf("weekly reports' projects = %v, %v; want vision, nlp and speech", projects, err)
	}
	err = chromedp.Do(b.ctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Click(css(`[data-testid=idle-task] [data-testid=keep]`)),
		chromedp.WaitVisible(css(`[data-testid=notice]`)),
		b.shot("notices-kept-phone.png"),
	)
	if err != nil {
		t.Fatalf("the lead keeps alice's task: %v (screenshots in %s)", err, b.shots)
	}
	if rs, _ := s.TaskReclaims(ctx); rs[task.ID].KeepsOnDay != 1 {
		t.Errorf("after the lead's keep: %+v, want one keep", rs[task.ID])
	}
}
