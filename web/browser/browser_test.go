package browser_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
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

// TestBrowserQuotaApproval walks the approval flow in headless Chromium: a member whose task
// waits because the project's budget is spent asks for more on the projects page, the lead
// logs in and approves it on the approvals page, and the member's task starts.
func TestBrowserQuotaApproval(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := modelstest.SQLite(t, models.Options{})

	// One node of 8 A100s, reporting; project vision with a 1 card-hour budget already spent.
	req := models.NodeRegistration{Hostname: "n1", Pool: "a100"}
	for i := 0; i < 8; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("g%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	node, err := s.RegisterNode(ctx, req, "h", now)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.EnsureProject(ctx, "vision", now)
	member, _ := s.CreateUser(ctx, "member", "pw-member", models.RoleUser, now)
	lead, _ := s.CreateUser(ctx, "lead", "pw-lead", models.RoleUser, now)
	s.SetMember(ctx, p.ID, member.ID, models.ProjectRoleMember)
	s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
	// The contract lets the project's lead raise the budget to 100 card-hours.
	if _, err := s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 1,
		StartsAt: now.AddDate(0, -1, 0), EndsAt: now.AddDate(0, 2, 0), ContractBudgetCardHours: 100}, now); err != nil {
		t.Fatal(err)
	}
	task := func(name string) models.Task {
		tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: name, Owner: "member", GPUs: 2, Spec: "A100-80G",
			Queue: models.QueueLong, Priority: "normal", Command: []string{"train"}, DataReady: true}, models.DefaultTaskLimits, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: clock, NodeStaleAfter: 24 * time.Hour})
	spent := task("earlier")
	loop.RunOnce(ctx, now.Add(-time.Hour))
	s.ReportTaskStatus(ctx, node.ID, spent.ID, models.TaskReport{State: models.ReportExited, TS: now.Add(-30 * time.Minute)}, now)
	waiting := task("resnet-big")
	if _, err := loop.RunOnce(ctx, now); err != nil {
		t.Fatal(err)
	}
	if row, _ := s.TaskByID(ctx, waiting.ID); row.State != models.TaskQueued || !strings.Contains(row.Reason, "quota") {
		t.Fatalf("before approval the task is %s (%q), want queued for quota", row.State, row.Reason)
	}

	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: time.Minute}, clock)
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()

	b := newBrowser(t, srv.URL, 60*time.Second)
	wctx, shot, login := b.ctx, b.shot, b.login
	err = chromedp.Do(wctx,
		login("member", "pw-member"),
		chromedp.Navigate(srv.URL+"/projects"),
		chromedp.WaitVisible(css(`[data-testid=request-form]`)),
		chromedp.SetValue(css(`[data-testid=request-form] select[name=kind]`), "budget"),
		chromedp.SendKeys(css(`[data-testid=request-form] input[name=value]`), "20"),
		chromedp.SendKeys(css(`[data-testid=request-form] textarea[name=reason]`), "Paper deadline: <b>big</b> run"),
		shot("1-member-request.png"),
		chromedp.Click(css(`[data-testid=request-submit]`)),
		chromedp.WaitVisible(css(`[data-testid=notice]`)),
		shot("2-member-sent.png"),
	)
	if err != nil {
		t.Fatalf("member's request: %v (screenshots in %s)", err, b.shots)
	}
	notice, err := chromedp.Run(wctx, chromedp.Text(css(`[data-testid=notice]`)))
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(wctx,
		b.logout(),
		login("lead", "pw-lead"),
		chromedp.Navigate(srv.URL+"/approvals"),
		chromedp.WaitVisible(css(`[data-testid=approve-ask] summary`)),
		shot("3-lead-approvals.png"),
		chromedp.Click(css(`[data-testid=approve-ask] summary`)), // approving asks first, with its cost
		chromedp.WaitVisible(css(`[data-testid=approve-button]`)),
		chromedp.SendKeys(css(`[data-testid=decide-form] input[name=comment]`), "ok, go"),
		chromedp.Click(css(`[data-testid=approve-button]`)),
		chromedp.WaitVisible(css(`[data-testid=notice]`)),
		shot("4-lead-approved.png"),
	)
	if err != nil {
		t.Fatalf("lead's approval: %v (screenshots in %s)", err, b.shots)
	}
	if !strings.Contains(notice, "#") {
		t.Errorf("notice after the request = %q", notice)
	}
	qs, _ := s.Quotas(ctx, p.ID)
	if qs[0].BudgetCardHours != 21 {
		t.Errorf("budget after approval = %d, want 21", qs[0].BudgetCardHours)
	}
	if _, err := loop.RunOnce(ctx, now); err != nil {
		t.Fatal(err)
	}
	if row, _ := s.TaskByID(ctx, waiting.ID); row.State != models.TaskStarting {
		t.Errorf("after approval the task is %s (%q), want starting", row.State, row.Reason)
	}
	t.Logf("screenshots in %s", b.shots)
}
