package browser_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
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

// TestBrowserDailyWork walks the daily journeys in headless Chromium: a member submits a task,
// follows its page as it starts and cancels it; a submit to a project the member may not use
// shows the refusal; the member is told when the task ends; a viewer finds who holds a card from the board in one click; and on a
// 390×844 phone no page scrolls sideways, in English and Chinese. Screenshots go to
// KASHI_SCREENSHOTS when set.
func TestBrowserDailyWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := modelstest.SQLite(t, models.Options{})
	req := models.NodeRegistration{Hostname: "n1", Pool: "a100"}
	for i := 0; i < 8; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("g%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	n1, err := s.RegisterNode(ctx, req, "h", now)
	if err != nil {
		t.Fatal(err)
	}
	vision, _ := s.EnsureProject(ctx, "vision", now)
	s.EnsureProject(ctx, "nlp", now)
	member, _ := s.CreateUser(ctx, "member", "pw-member", models.RoleUser, now)
	s.SetMember(ctx, vision.ID, member.ID, models.ProjectRoleMember)
	s.CreateUser(ctx, "viewer", "pw-viewer", models.RoleViewer, now)
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: clock, NodeStaleAfter: 24 * time.Hour})
	held, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "idle-holder", Owner: "alice", GPUs: 1, Spec: "A100-80G",
		Queue: models.QueueLong, Priority: "normal", Command: []string{"sleep"}, DataReady: true}, models.DefaultTaskLimits, now.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loop.RunOnce(ctx, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: 24 * time.Hour}, clock)
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()

	b := newBrowser(t, srv.URL, 90*time.Second)
	wctx := b.ctx
	login := func(user string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.Navigate(srv.URL+"/login"),
			chromedp.WaitVisible(css(`input[name=username]`)),
			chromedp.SendKeys(css(`input[name=username]`), user),
			chromedp.SendKeys(css(`input[name=password]`), "pw-"+user),
			chromedp.Submit(css(`form[action="/login"]`)),
			chromedp.WaitVisible(css(`[data-testid=who]`)),
		)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(wctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}

	// The member submits, opens the task from the lane, sees it start and cancels it.
	err = chromedp.Do(wctx,
		login("member"),
		chromedp.Navigate(srv.URL+"/queue"),
		chromedp.WaitVisible(css(`[data-testid=task-form]`)),
		chromedp.SendKeys(css(`#f-name`), "resnet-small"),
		chromedp.SendKeys(css(`#f-gpus`), "2"),
		chromedp.SendKeys(css(`#f-command`), "python\ntrain.py"),
		chromedp.Click(css(`[data-testid=task-submit]`)),
		chromedp.WaitVisible(css(`[data-testid=form-notice]`)),
		chromedp.Click(css(`[data-testid=queue-row] [data-testid=task-link]`)),
		chromedp.WaitVisible(css(`[data-testid=task-live][data-state=queued]`)),
		b.shot("daily-1-task-queued.png"),
	)
	if err != nil {
		t.Fatalf("member's submit: %v (screenshots in %s)", err, b.shots)
	}
	if _, err := loop.RunOnce(ctx, now); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(wctx,
		chromedp.WaitVisible(css(`[data-testid=task-live][data-state=starting]`)), // the live part refreshes itself
		b.shot("daily-2-task-starting.png"),
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(css(`[data-testid=task-cancel]`)),
		chromedp.WaitVisible(css(`[data-testid=task-live][data-stopping]`)),
		b.shot("daily-3-task-stopping.png"),
	)
	if err != nil {
		t.Fatalf("member's task page: %v (screenshots in %s)", err, b.shots)
	}
	if owner := text(`[data-testid=task-owner]`); owner != "member" {
		t.Errorf("task owner = %q, want member", owner)
	}

	// A submit to a project the member is not in shows the server's refusal.
	err = chromedp.Do(wctx,
		chromedp.Navigate(srv.URL+"/queue"),
		chromedp.WaitVisible(css(`[data-testid=task-form]`)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('f-project').add(new Option('nlp', 'nlp', true, true))`),
		chromedp.SendKeys(css(`#f-name`), "sneaky"),
		chromedp.SendKeys(css(`#f-gpus`), "1"),
		chromedp.SendKeys(css(`#f-command`), "x"),
		chromedp.Click(css(`[data-testid=task-submit]`)),
		chromedp.WaitVisible(css(`[data-testid=form-answer]`)),
		b.shot("daily-4-forbidden.png"),
	)
	if err != nil {
		t.Fatalf("forbidden submit: %v (screenshots in %s)", err, b.shots)
	}
	if got := text(`[data-testid=form-answer]`); !strings.Contains(got, "nlp") || !strings.Contains(got, "403") {
		t.Errorf("answer to a forbidden submit = %q, want it to name nlp and 403", got)
	}

	// The cancelled task's process exits: the member is told, with a link and an unread count.
	mine, err := s.Tasks(ctx, models.TaskFilter{Owner: "member"})
	if err != nil || len(mine) != 1 {
		t.Fatalf("member's tasks = %v, %v", mine, err)
	}
	if err := s.ReportTaskStatus(ctx, n1.ID, mine[0].ID, models.TaskReport{State: models.ReportExited, ExitCode: 143, TS: now}, now); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(wctx,
		chromedp.Navigate(srv.URL+"/notifications"),
		chromedp.WaitVisible(css(`[data-testid=nav-unread]`)),
		chromedp.WaitVisible(css(`[data-testid=notification] [data-testid=task-link]`)),
		b.shot("daily-5-notifications.png"),
	)
	if err != nil {
		t.Fatalf("member's notifications: %v (screenshots in %s)", err, b.shots)
	}
	if got := text(`[data-testid=nav-unread]`); got != "1" {
		t.Errorf("unread count = %q, want 1", got)
	}

	// A viewer finds who holds card g0 in one click from the board (where a card shows its id,
	// its UUID being an admin's).
	g0, err := s.GPUByUUID(ctx, "g0")
	if err != nil {
		t.Fatal(err)
	}
	card := `[data-gpu="` + strconv.FormatInt(g0.ID, 10) + `"] [data-testid=card-task]`
	err = chromedp.Do(wctx,
		chromedp.Submit(css(`[data-testid=who]`)),
		chromedp.WaitVisible(css(`input[name=username]`)),
		login("viewer"),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(css(card)),
		b.shot("daily-6-viewer-board.png"),
		chromedp.Click(css(card)),
		chromedp.WaitVisible(css(`[data-testid=task-owner]`)),
	)
	if err != nil {
		t.Fatalf("viewer's board: %v (screenshots in %s)", err, b.shots)
	}
	if owner := text(`[data-testid=task-owner]`); owner != held.Owner {
		t.Errorf("holder of g0 = %q, want %q", owner, held.Owner)
	}

	// On a phone no page scrolls sideways, in either language.
	for _, lang := range []string{"en", "zh-CN"} {
		for _, path := range []string{"/", "/queue", "/tasks", fmt.Sprintf("/tasks/%d", held.ID), "/projects", "/pools"} {
			name := fmt.Sprintf("daily-phone-%s%s.png", lang, strings.ReplaceAll(path, "/", "-"))
			err := chromedp.Do(wctx,
				chromedp.EmulateViewport(390, 844),
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+path),
				chromedp.WaitVisible(css(`main`)),
				b.shot(name),
			)
			if err != nil {
				t.Fatalf("phone %s %s: %v", lang, path, err)
			}
			width, err := chromedp.Run(wctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if width > 390 {
				t.Errorf("phone %s %s is %d px wide, want at most 390 (%s)", lang, path, width, name)
			}
		}
	}
	// The phone's menu opens the navigation, whose labels stay on one line each.
	err = chromedp.Do(wctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(css(`[data-testid=menu-toggle]`)),
		chromedp.Click(css(`[data-testid=menu-toggle]`)),
		chromedp.WaitVisible(css(`#main-nav`)),
		b.shot("daily-phone-zh-CN-menu.png"),
	)
	if err != nil {
		t.Fatalf("phone menu: %v", err)
	}
	tall, err := chromedp.Run(wctx, chromedp.Evaluate[bool](
		`[...document.querySelectorAll('#main-nav a')].some(a => a.getBoundingClientRect().height > 48)`))
	if err != nil || tall {
		t.Errorf("a nav label wraps on the phone (%v)", err)
	}
	t.Logf("screenshots in %s", b.shots)
}
