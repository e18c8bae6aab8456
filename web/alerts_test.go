package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

func TestAlertsPage(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	s.store.RaiseAlert(ctx, models.AlertBootTimeout, "a100/a100-k1", "pool a100: machine a100-k1 did not register within 15m", t0.Add(-time.Hour))
	s.store.ResolveAlert(ctx, models.AlertBootTimeout, "a100/a100-k1", t0.Add(-50*time.Minute))
	for i := range 3 {
		s.store.RaiseAlert(ctx, models.AlertScaleFailed, "a100", "pool a100: 1 of 1 machines not created: out of capacity", t0.Add(time.Duration(i-3)*time.Minute))
	}
	a, _, _ := s.store.RaiseAlert(ctx, models.AlertGPUMemory, "GPU-a100-01-3", "task 7: GPU memory 97% ≥ 95%", t0.Add(-time.Minute))
	s.store.MarkAlertSent(ctx, a.ID, t0)

	doc := parse(t, s.get("/alerts").Body.String())
	open := doc.Find(`[data-testid=alerts-open] [data-testid=alert-row]`)
	if open.Length() != 2 {
		t.Fatalf("open alert rows = %d, want 2", open.Length())
	}
	var kinds []string
	open.Each(func(_ int, s *goquery.Selection) { kinds = append(kinds, s.AttrOr("data-kind", "")) })
	if diff := cmp.Diff([]string{"gpu-memory", "scale-failed"}, kinds); diff != "" {
		t.Errorf("open alerts, newest first (-want +got):\n%s", diff)
	}
	if n := open.Eq(1).Find("td.num").Text(); n != "3" {
		t.Errorf("scale-failed count = %q, want 3", n)
	}
	failed := strings.Join(strings.Fields(open.Eq(1).Text()), " ")
	for _, want := range []string{"Scaling failed", "a100", "out of capacity", "open", "not sent to chat yet"} {
		if !strings.Contains(failed, want) {
			t.Errorf("scale-failed row %q lacks %q", failed, want)
		}
	}
	if got := open.Eq(0).Text(); !strings.Contains(got, "sent to chat") || strings.Contains(got, "not sent") {
		t.Errorf("sent alert row = %q", strings.Join(strings.Fields(got), " "))
	}
	resolved := doc.Find(`[data-testid=alerts-resolved] [data-testid=alert-row]`)
	if resolved.Length() != 1 || resolved.AttrOr("data-state", "") != "resolved" || !strings.Contains(resolved.Text(), "resolved 08:10:00") {
		t.Errorf("resolved rows = %d %q", resolved.Length(), strings.Join(strings.Fields(resolved.Text()), " "))
	}
	zh := parse(t, s.get("/alerts", "Accept-Language", "zh-CN").Body.String())
	if got := zh.Find(`[data-testid=alert-row][data-kind=boot-timeout] .badge`).Text(); got != "启动超时" {
		t.Errorf("zh kind = %q", got)
	}

	w := s.get("/api/v1/alerts?open=true")
	list := decode[[]map[string]any](t, w)
	if len(list) != 2 || list[1]["kind"] != "scale-failed" || list[1]["count"] != 3.0 || list[1]["resolved_at"] != nil {
		t.Errorf("GET /api/v1/alerts?open=true = %v", list)
	}
}

// idleWorld is a server with alice, a member of vision, whose task holds a card and got an
// idle notice, and bob, a member of speech.
type idleWorld struct {
	*server
	alice, bob string // API tokens
	aliceID    int64
	task       models.Task
}

func newIdleWorld(t *testing.T) idleWorld {
	t.Helper()
	s := newServer(t)
	ctx := context.Background()
	s.projects("vision", "speech")
	w := idleWorld{server: s}
	for _, u := range []struct{ name, project string }{{"alice", "vision"}, {"bob", "speech"}} {
		user, err := s.store.CreateUser(ctx, u.name, "pw-"+u.name, models.RoleUser, t0)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := s.store.ProjectByName(ctx, u.project)
		s.store.SetMember(ctx, p.ID, user.ID, models.ProjectRoleMember)
		tok, _, _ := s.store.CreateAPIToken(ctx, user.ID, "t", models.ScopeWrite, t0)
		if u.name == "alice" {
			w.alice, w.aliceID = tok, user.ID
		} else {
			w.bob = tok
		}
	}
	s.register(node("a100-01").inPool("a100").cards(a100Name, a100MiB, 2))
	b := task("train").of("vision").ready()
	b.nt.Owner = "alice"
	w.task = s.create(b, t0.Add(-2*time.Hour))
	s.place(w.task, t0.Add(-2*time.Hour), "GPU-a100-01-0")
	if err := s.store.SetReclaimNotice(ctx, w.task.ID, t0.Add(-5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w idleWorld) path(verb string) string {
	return "/api/v1/tasks/" + strconv.FormatInt(w.task.ID, 10) + "/" + verb
}

func TestIdleTaskKeep(t *testing.T) {
	w := newIdleWorld(t)
	// Another project's member cannot keep it: it does not exist for them.
	if r := w.post(w.path("keep"), "", bearer(w.bob)...); r.Code != http.StatusNotFound {
		t.Errorf("bob keeps alice's task = %d %s, want 404", r.Code, r.Body)
	}
	for i := range 2 {
		r := w.post(w.path("keep"), "", bearer(w.alice)...)
		if r.Code != http.StatusOK {
			t.Fatalf("keep %d = %d %s, want 200", i+1, r.Code, r.Body)
		}
		got := decode[map[string]any](t, r)
		if got["kept_until"] != t0.Add(2*time.Hour).Format(time.RFC3339) || got["id"] != float64(w.task.ID) {
			t.Errorf("keep %d = %v, want kept until %s", i+1, got, t0.Add(2*time.Hour))
		}
	}
	r := w.post(w.path("keep"), "", bearer(w.alice)...)
	if r.Code != http.StatusConflict || !strings.Contains(r.Body.String(), "the most a day allows") {
		t.Errorf("third keep of the day = %d %s, want 409", r.Code, r.Body)
	}
	// The next day allows two keeps again.
	w.setNow(t0.Add(24 * time.Hour))
	if r := w.post(w.path("keep"), "", bearer(w.alice)...); r.Code != http.StatusOK {
		t.Errorf("keep the next day = %d %s", r.Code, r.Body)
	}
}

func TestIdleTaskRelease(t *testing.T) {
	w := newIdleWorld(t)
	if r := w.post(w.path("release"), "", bearer(w.bob)...); r.Code != http.StatusNotFound {
		t.Errorf("bob releases alice's task = %d, want 404", r.Code)
	}
	before := w.sched.triggers()
	r := w.post(w.path("release"), "", bearer(w.alice)...)
	if r.Code != http.StatusOK {
		t.Fatalf("release = %d %s", r.Code, r.Body)
	}
	row, _ := w.store.TaskByID(context.Background(), w.task.ID)
	if row.StopState != models.TaskReclaimed || !strings.Contains(row.StopReason, "released by alice") {
		t.Errorf("task stop = %q %q, want reclaimed, released by alice", row.StopState, row.StopReason)
	}
	if w.sched.triggers() != before+1 {
		t.Errorf("release did not wake the scheduler")
	}
	// Releasing again is harmless: the stop is already asked.
	if r := w.post(w.path("release"), "", bearer(w.alice)...); r.Code != http.StatusOK {
		t.Errorf("second release = %d, want 200", r.Code)
	}
}

func TestNotificationsPage(t *testing.T) {
	w := newIdleWorld(t)
	ctx := context.Background()
	w.store.NotifyUser(ctx, "alice", "other", "budget", "The A100-80G budget is 80% used this month.", t0.Add(-time.Hour))
	w.store.NotifyUser(ctx, "alice", "idle-notice:1:1", "idle-notice", "Task #1 train: cards idle for 31m ≥ 30m", t0.Add(-5*time.Minute))

	doc := parse(t, w.get("/notifications", bearer(w.alice)...).Body.String())
	idle := doc.Find(`[data-testid=idle-task]`)
	if idle.Length() != 1 || idle.AttrOr("data-task", "") != strconv.FormatInt(w.task.ID, 10) {
		t.Fatalf("idle tasks = %d", idle.Length())
	}
	for _, sel := range []string{`form[action$="/keep"] [data-testid=keep]`, `form[action$="/release"] [data-testid=release]`,
		`form[action$="/keep"] input[name=_csrf]`, `form[action$="/release"] input[name=_csrf]`} {
		if idle.Find(sel).Length() != 1 {
			t.Errorf("idle task lacks %s", sel)
		}
	}
	if got := idle.Find(`[data-testid=keep]`).Text(); got != "Keep for 2h" {
		t.Errorf("keep button = %q", got)
	}
	notes := doc.Find(`[data-testid=notification]`)
	if notes.Length() != 2 || notes.First().AttrOr("data-kind", "") != "idle-notice" || !strings.Contains(notes.First().Text(), "Its cards stay idle") ||
		notes.First().Find(`[data-testid=task-link]`).AttrOr("href", "") != "/tasks/1" {
		t.Errorf("notifications = %d, first %q", notes.Length(), notes.First().Text())
	}
	// Bob has no idle task and no notification.
	bob := parse(t, w.get("/notifications", bearer(w.bob)...).Body.String())
	if bob.Find(`[data-testid=idle-task]`).Length() != 0 || bob.Find(`[data-testid=notes-none]`).Length() != 1 {
		t.Errorf("bob sees alice's idle task or notes")
	}

	// Keep through the page: twice, then the cap is refused with the page and its message.
	keep := "/notifications/tasks/" + strconv.FormatInt(w.task.ID, 10) + "/keep"
	for i := range 2 {
		resp := w.form(keep, url.Values{}, bearer(w.alice)...)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/notifications?kept=") {
			t.Fatalf("keep %d = %d → %q", i+1, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	resp := w.form(keep, url.Values{}, bearer(w.alice)...)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("third keep = %d, want 409", resp.StatusCode)
	}
	page := docOf(t, resp)
	if msg := page.Find(`[data-testid=notes-error]`).Text(); !strings.Contains(msg, "already kept 2 times today") {
		t.Errorf("cap message = %q", msg)
	}
	if _, off := page.Find(`[data-testid=keep]`).Attr("disabled"); !off {
		t.Errorf("keep button still enabled with no keeps left")
	}
	loc := "/notifications?kept=" + strconv.FormatInt(w.task.ID, 10) + "&until=" + strconv.FormatInt(t0.Add(2*time.Hour).Unix(), 10)
	kept := parse(t, w.get(loc, bearer(w.alice)...).Body.String())
	if n := kept.Find(`[data-testid=notice]`).Text(); n != "Task #"+strconv.FormatInt(w.task.ID, 10)+" keeps its cards until 11:00." {
		t.Errorf("notice = %q", n)
	}
	if got := kept.Find(`[data-testid=idle-task]`).Text(); !strings.Contains(got, "kept until 11:00:00") {
		t.Errorf("idle task = %q, want kept until 11:00:00", strings.Join(strings.Fields(got), " "))
	}

	// Another project's member cannot release it through the page either.
	release := "/notifications/tasks/" + strconv.FormatInt(w.task.ID, 10) + "/release"
	if resp := w.form(release, url.Values{}, bearer(w.bob)...); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob's release = %d, want 404", resp.StatusCode)
	}
	if resp := w.form(release, url.Values{}, bearer(w.alice)...); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("release = %d, want 303", resp.StatusCode)
	}

	// Mark all read.
	if resp := w.form("/notifications/read", url.Values{}, bearer(w.alice)...); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("mark read = %d", resp.StatusCode)
	}
	list, _ := w.store.Notifications(ctx, w.aliceID, 10)
	for _, n := range list {
		if n.ReadAt == nil {
			t.Errorf("notification %q still unread", n.Message)
		}
	}
}
