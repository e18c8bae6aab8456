package pools_test

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
	"kashi/web/webtest"
)

// alertsWorld raises, at t0, a resolved boot timeout, a scaling failure raised three times,
// two GPU memory alerts of one task (one sent to chat) and an unmanaged-use alert on the
// task's node; it returns the task.
func alertsWorld(t *testing.T, s *webtest.Server) models.Task {
	t.Helper()
	ctx := context.Background()
	s.Projects("vision")
	reg := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	tk := s.Create(webtest.Task("train").Of("vision").Ready(), webtest.T0.Add(-2*time.Hour))
	s.Place(tk, webtest.T0.Add(-2*time.Hour), "GPU-a100-01-0", "GPU-a100-01-1")
	raise := func(in models.AlertInput, at time.Time) models.Alert {
		a, _, err := s.Store.RaiseAlert(ctx, in, at)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	raise(models.AlertInput{Kind: models.AlertBootTimeout, Subject: "a100/a100-k1", Pool: "a100", Code: "boot_timeout",
		Params: []string{"a100", "a100-k1"}}, webtest.T0.Add(-time.Hour))
	s.Store.ResolveAlert(ctx, models.AlertBootTimeout, "a100/a100-k1", webtest.T0.Add(-50*time.Minute))
	for i := range 3 {
		raise(models.AlertInput{Kind: models.AlertScaleFailed, Subject: "a100", Pool: "a100", Code: "machines_not_created",
			Params: []string{"a100", "1", "1", "out of capacity"}}, webtest.T0.Add(time.Duration(i-3)*time.Minute))
	}
	for i := range 2 {
		a := raise(models.AlertInput{Kind: models.AlertGPUMemory, Subject: "task on GPU " + strconv.Itoa(i), TaskID: tk.ID,
			NodeID: reg.ID, Pool: "a100", Severity: models.SeverityCritical, Code: "gpu_memory",
			Params: []string{strconv.FormatInt(tk.ID, 10), "train", "vision", "a100-01", strconv.Itoa(i), "79000", "81920", "96", "95"}},
			webtest.T0.Add(-time.Minute))
		if i == 0 {
			s.Store.MarkAlertSent(ctx, a.ID, webtest.T0)
		}
	}
	raise(models.AlertInput{Kind: models.AlertUnmanaged, Subject: "gpu GPU-a100-01-1", NodeID: reg.ID, Code: "unmanaged_gpu",
		Params: []string{"1", "GPU-a100-01-1", "python (pid 7)"}}, webtest.T0.Add(-2*time.Minute))
	return tk
}

func TestAlertsPage(t *testing.T) {
	s := webtest.NewServer(t)
	tk := alertsWorld(t, s)
	doc := webtest.Parse(t, s.Get("/alerts").Body.String())
	groups := doc.Find(`[data-testid=alerts-open] [data-testid=alert-group]`)
	var keys []string
	groups.Each(func(_ int, g *goquery.Selection) {
		keys = append(keys, g.AttrOr("data-group", "")+" "+g.AttrOr("data-severity", "")+" "+strconv.Itoa(g.Find(`[data-testid=alert-row]`).Length()))
	})
	taskKey := "task-" + strconv.FormatInt(tk.ID, 10)
	// The task's two GPU alerts are one row, the worst first; the scaling failure, about the
	// pool only, another; the node's unmanaged use, seen less recently, a third.
	if diff := cmp.Diff([]string{taskKey + " critical 2", "alert-2 warning 1", "node-1 warning 1"}, keys); diff != "" {
		t.Errorf("open groups (-want +got):\n%s", diff)
	}
	tg := groups.Filter(`[data-group=` + taskKey + `]`)
	if href := tg.Find(`[data-testid=task-link]`).AttrOr("href", ""); href != "/tasks/"+strconv.FormatInt(tk.ID, 10) {
		t.Errorf("task link = %q", href)
	}
	if href := tg.Find(`[data-testid=alert-node]`).AttrOr("href", ""); href != "/nodes/1" {
		t.Errorf("node link = %q", href)
	}
	if href := tg.Find(`[data-testid=alert-board]`).AttrOr("href", ""); href != "/?view=grid&pool=a100" {
		t.Errorf("board link = %q", href)
	}
	if got := tg.Find(`[data-testid=alert-sent]`).Text(); strings.TrimSpace(got) != "1 of 2 sent to chat" {
		t.Errorf("task group delivery = %q", got)
	}
	text := strings.Join(strings.Fields(tg.Text()), " ")
	if !strings.Contains(text, "Task #1 (train, project vision) on a100-01 GPU 1 uses 79000 of 81920 MiB (96% ≥ 95%).") {
		t.Errorf("task group = %q, want the rendered sentence", text)
	}
	failed := strings.Join(strings.Fields(groups.Filter(`[data-group=alert-2]`).Text()), " ")
	for _, want := range []string{"Scaling failed", "Pool a100: 1 of 1 machines not created: out of capacity", "×3", "not sent to chat yet"} {
		if !strings.Contains(failed, want) {
			t.Errorf("scale-failed group %q lacks %q", failed, want)
		}
	}
	if tg.Find(`form[action="/alerts/ack"] input[name=_csrf]`).Length() != 1 || tg.Find(`input[name=id]`).Length() != 2 {
		t.Errorf("task group lacks an acknowledge form with CSRF and both ids")
	}
	resolved := doc.Find(`[data-testid=alerts-resolved] [data-testid=alert-group]`)
	if resolved.Length() != 1 || resolved.Find(`[data-testid=alert-row]`).Length() != 1 || !strings.Contains(resolved.Text(), "resolved 08:10:00") ||
		!strings.Contains(resolved.Text(), "machine a100-k1 did not register") {
		t.Errorf("resolved rows = %d %q", resolved.Length(), strings.Join(strings.Fields(resolved.Text()), " "))
	}
	zh := webtest.Parse(t, s.Get("/alerts", "Accept-Language", "zh-CN").Body.String())
	if got := zh.Find(`[data-testid=alert-group][data-kind=boot-timeout] .badge`).Text(); got != "机器未能启动" {
		t.Errorf("zh kind = %q", got)
	}
	if got := zh.Find(`[data-group=` + taskKey + `]`).Text(); !strings.Contains(got, "在 a100-01 的 GPU 0 上占用显存 79000 / 81920 MiB") {
		t.Errorf("zh task group = %q", strings.Join(strings.Fields(got), " "))
	}
	// What an alert is about, in the page's language: the pool of the scaling failure, the
	// machine of the resolved boot timeout.
	for lang, want := range map[string][2]string{"en": {"pool a100", "machine a100-k1 of pool a100"}, "zh-CN": {"资源池 a100", "机器 a100-k1（资源池 a100）"}} {
		doc := webtest.Parse(t, s.Get("/alerts", "Accept-Language", lang).Body.String())
		if got := doc.Find(`[data-group=alert-2] [data-testid=alert-subject]`).Text(); got != want[0] {
			t.Errorf("%s: the scaling failure is about %q, want %q", lang, got, want[0])
		}
		if got := doc.Find(`[data-testid=alerts-resolved] [data-testid=alert-subject]`).Text(); got != want[1] {
			t.Errorf("%s: the resolved boot timeout is about %q, want %q", lang, got, want[1])
		}
	}

	w := s.Get("/api/v1/alerts?open=true")
	list := webtest.Decode[[]map[string]any](t, w)
	if len(list) != 4 || list[2]["kind"] != "scale-failed" || list[2]["count"] != 3.0 || list[2]["code"] != "machines_not_created" ||
		list[2]["message"] != "Pool a100: 1 of 1 machines not created: out of capacity" || list[0]["severity"] != "critical" {
		t.Errorf("GET /api/v1/alerts?open=true = %v", list)
	}
}

// A task's alerts of one kind, one per card, are one line of its open group and one row of
// the resolved ones (with how many and how often, each alert listed when opened), apart from
// its alerts of another kind and another task's: the page stays short on a phone.
func TestAlertsGroupedByKind(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision")
	reg := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	a := s.Create(webtest.Task("a").Of("vision").Ready().GPUs(4), webtest.T0.Add(-3*time.Hour))
	s.Place(a, webtest.T0.Add(-3*time.Hour), "GPU-a100-01-0", "GPU-a100-01-1", "GPU-a100-01-2", "GPU-a100-01-3")
	b := s.Create(webtest.Task("b").Of("vision").Ready().GPUs(4), webtest.T0.Add(-3*time.Hour))
	s.Place(b, webtest.T0.Add(-3*time.Hour), "GPU-a100-01-4", "GPU-a100-01-5", "GPU-a100-01-6", "GPU-a100-01-7")
	raise := func(tk models.Task, kind, gpu string, at time.Time, resolve bool) {
		in := models.AlertInput{Kind: kind, Subject: "task " + strconv.FormatInt(tk.ID, 10) + " GPU " + gpu, TaskID: tk.ID, NodeID: reg.ID,
			Pool: "a100", Code: "gpu_memory", Params: []string{strconv.FormatInt(tk.ID, 10), tk.Name, "vision", "a100-01", gpu, "79000", "81920", "96", "95"}}
		if _, _, err := s.Store.RaiseAlert(ctx, in, at); err != nil {
			t.Fatal(err)
		}
		if resolve {
			if err := s.Store.ResolveAlert(ctx, kind, in.Subject, at.Add(10*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, gpu := range []string{"0", "1", "2"} {
		raise(a, models.AlertGPUMemory, gpu, webtest.T0.Add(time.Duration(i-120)*time.Minute), true)
	}
	raise(a, models.AlertGPUMemory, "0", webtest.T0.Add(-100*time.Minute), false) // raised again after it was resolved
	raise(a, models.AlertIdleCards, "3", webtest.T0.Add(-90*time.Minute), true)
	raise(b, models.AlertGPUMemory, "4", webtest.T0.Add(-80*time.Minute), true)
	for _, gpu := range []string{"5", "6", "7"} {
		raise(b, models.AlertGPUMemory, gpu, webtest.T0.Add(-time.Minute), false)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		doc := webtest.Parse(t, s.Get("/alerts", "Accept-Language", lang).Body.String())
		var rows []string
		doc.Find(`[data-testid=alerts-resolved] [data-testid=alert-group]`).Each(func(_ int, g *goquery.Selection) {
			rows = append(rows, g.AttrOr("data-group", "")+" "+strconv.Itoa(g.Find(`[data-testid=alert-row]`).Length())+" "+
				strings.TrimSpace(g.Find(`td.num`).Text()))
		})
		ta, tb := strconv.FormatInt(a.ID, 10), strconv.FormatInt(b.ID, 10)
		want := []string{"gpu-memory/task-" + tb + " 1 1", "idle-cards/task-" + ta + " 1 1", "gpu-memory/task-" + ta + " 3 3"}
		if diff := cmp.Diff(want, rows); diff != "" {
			t.Errorf("%s: resolved rows: group, alerts, times (-want +got):\n%s", lang, diff)
		}
		many := doc.Find(`[data-group="gpu-memory/task-` + ta + `"]`)
		if many.Find(`details [data-testid=alert-row]`).Length() != 3 || many.Find(`[data-testid=task-link]`).AttrOr("href", "") != "/tasks/"+ta {
			t.Errorf("%s: task %s's resolved row = %q, want its three alerts beneath a link to it", lang, ta, strings.Join(strings.Fields(many.Text()), " "))
		}
		open := doc.Find(`[data-testid=alerts-open] [data-group=task-` + tb + `]`)
		if kinds := open.Find(`[data-testid=alert-kind][data-kind=gpu-memory]`); kinds.Length() != 1 || kinds.Find(`details [data-testid=alert-row]`).Length() != 3 {
			t.Errorf("%s: task %s's open memory alerts = %d lines with %d alerts, want one line with three", lang, tb,
				kinds.Length(), kinds.Find(`[data-testid=alert-row]`).Length())
		}
	}
}

func TestAlertAck(t *testing.T) { webtest.ForEachDB(t, testAlertAck) }

func testAlertAck(t *testing.T, s *webtest.Server) {
	ctx := context.Background()
	tk := alertsWorld(t, s)
	ids := func(group string) url.Values {
		doc := webtest.Parse(t, s.Get("/alerts").Body.String())
		v := url.Values{}
		doc.Find(`[data-group=` + group + `] input[name=id]`).Each(func(_ int, in *goquery.Selection) { v.Add("id", in.AttrOr("value", "")) })
		return v
	}
	taskKey := "task-" + strconv.FormatInt(tk.ID, 10)
	taskIDs, nodeIDs := ids(taskKey), ids("node-1")

	// A lead of vision acknowledges the task's alerts, not the node's; a member neither.
	lead, _ := s.Store.CreateUser(ctx, "lena", "pw-lena", models.RoleUser, webtest.T0)
	member, _ := s.Store.CreateUser(ctx, "max", "pw-max", models.RoleUser, webtest.T0)
	p, _ := s.Store.ProjectByName(ctx, "vision")
	s.Store.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
	s.Store.SetMember(ctx, p.ID, member.ID, models.ProjectRoleMember)
	leadTok, _, _ := s.Store.CreateAPIToken(ctx, lead.ID, "t", models.ScopeWrite, webtest.T0)
	memberTok, _, _ := s.Store.CreateAPIToken(ctx, member.ID, "t", models.ScopeWrite, webtest.T0)
	leadPage := webtest.Parse(t, s.Get("/alerts", webtest.Bearer(leadTok)...).Body.String())
	if leadPage.Find(`[data-group=`+taskKey+`] [data-testid=alert-ack]`).Length() != 1 ||
		leadPage.Find(`[data-group=node-1] [data-testid=alert-ack]`).Length() != 0 {
		t.Errorf("the lead's page offers acknowledging other than the task's group")
	}
	if resp := s.Form("/alerts/ack", taskIDs, webtest.Bearer(memberTok)...); resp.StatusCode != http.StatusForbidden {
		t.Errorf("member acknowledges = %d, want 403", resp.StatusCode)
	}
	if resp := s.Form("/alerts/ack", nodeIDs, webtest.Bearer(leadTok)...); resp.StatusCode != http.StatusForbidden {
		t.Errorf("lead acknowledges a node's alert = %d, want 403", resp.StatusCode)
	}
	s.SetNow(webtest.T0.Add(5 * time.Minute))
	resp := s.Form("/alerts/ack", taskIDs, webtest.Bearer(leadTok)...)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts?acked=2" {
		t.Fatalf("lead acknowledges = %d → %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc := webtest.Parse(t, s.Get("/alerts?acked=2").Body.String())
	if got := doc.Find(`[data-testid=notice]`).Text(); got != "2 alerts acknowledged." {
		t.Errorf("notice = %q", got)
	}
	tg := doc.Find(`[data-group=` + taskKey + `]`)
	if got := tg.Find(`[data-testid=alert-acked]`).Text(); got != "acknowledged by lena, 09:05:00" || tg.Find(`form`).Length() != 0 {
		t.Errorf("acknowledged group = %q, form %d", got, tg.Find(`form`).Length())
	}
	// Again: nothing more to mark, the first acknowledgement stays.
	if resp := s.Form("/alerts/ack", taskIDs); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts?acked=0" {
		t.Errorf("admin acknowledges again = %d → %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for name, bad := range map[string]url.Values{"none": {}, "not a number": {"id": {"x"}}, "negative": {"id": {"-3"}}} {
		if resp := s.Form("/alerts/ack", bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: acknowledge = %d, want 400", name, resp.StatusCode)
		}
	}
	if resp := s.Form("/alerts/ack", url.Values{"id": {"9999"}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown id: acknowledge = %d, want 404", resp.StatusCode)
	}
	a, _ := s.Store.Alerts(ctx, models.AlertFilter{OpenOnly: true})
	for _, al := range a {
		if al.TaskID == tk.ID && (al.AckedBy != "lena" || al.AckedAt == nil || !al.AckedAt.Equal(webtest.T0.Add(5*time.Minute))) {
			t.Errorf("alert %d acked by %q at %v, want lena at 09:05", al.ID, al.AckedBy, al.AckedAt)
		}
	}
}

func TestIdleTaskKeep(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	// Another project's member cannot keep it: it does not exist for them.
	if r := w.Post(w.Path("keep"), "", webtest.Bearer(w.Bob)...); r.Code != http.StatusNotFound {
		t.Errorf("bob keeps alice's task = %d %s, want 404", r.Code, r.Body)
	}
	for i := range 2 {
		r := w.Post(w.Path("keep"), "", webtest.Bearer(w.Alice)...)
		if r.Code != http.StatusOK {
			t.Fatalf("keep %d = %d %s, want 200", i+1, r.Code, r.Body)
		}
		got := webtest.Decode[map[string]any](t, r)
		if got["kept_until"] != webtest.T0.Add(2*time.Hour).Format(time.RFC3339) || got["id"] != float64(w.Task.ID) {
			t.Errorf("keep %d = %v, want kept until %s", i+1, got, webtest.T0.Add(2*time.Hour))
		}
	}
	r := w.Post(w.Path("keep"), "", webtest.Bearer(w.Alice)...)
	if r.Code != http.StatusConflict || !strings.Contains(r.Body.String(), "the most a day allows") {
		t.Errorf("third keep of the day = %d %s, want 409", r.Code, r.Body)
	}
	// The next day allows two keeps again.
	w.SetNow(webtest.T0.Add(24 * time.Hour))
	if r := w.Post(w.Path("keep"), "", webtest.Bearer(w.Alice)...); r.Code != http.StatusOK {
		t.Errorf("keep the next day = %d %s", r.Code, r.Body)
	}
}

func TestIdleTaskRelease(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	if r := w.Post(w.Path("release"), "", webtest.Bearer(w.Bob)...); r.Code != http.StatusNotFound {
		t.Errorf("bob releases alice's task = %d, want 404", r.Code)
	}
	before := w.Sched.Triggers()
	r := w.Post(w.Path("release"), "", webtest.Bearer(w.Alice)...)
	if r.Code != http.StatusOK {
		t.Fatalf("release = %d %s", r.Code, r.Body)
	}
	row, _ := w.Store.TaskByID(context.Background(), w.Task.ID)
	if row.StopState != models.TaskReclaimed || !strings.Contains(row.StopReason, "released by alice") {
		t.Errorf("task stop = %q %q, want reclaimed, released by alice", row.StopState, row.StopReason)
	}
	if w.Sched.Triggers() != before+1 {
		t.Errorf("release did not wake the scheduler")
	}
	// Releasing again is harmless: the stop is already asked.
	if r := w.Post(w.Path("release"), "", webtest.Bearer(w.Alice)...); r.Code != http.StatusOK {
		t.Errorf("second release = %d, want 200", r.Code)
	}
}

func TestNotificationsPage(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	w.Store.NotifyProject(ctx, vision.ID, "other", "budget", "The A100-80G budget is 80% used this month.", webtest.T0.Add(-time.Hour))
	w.Store.NotifyOwnerAndLeads(ctx, w.Task.ID, "idle-notice:1:1", "idle-notice", "Task #1 train: cards idle for 31m ≥ 30m", webtest.T0.Add(-5*time.Minute))

	doc := webtest.Parse(t, w.Get("/notifications", webtest.Bearer(w.Alice)...).Body.String())
	idle := doc.Find(`[data-testid=idle-task]`)
	if idle.Length() != 1 || idle.AttrOr("data-task", "") != strconv.FormatInt(w.Task.ID, 10) {
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
	bob := webtest.Parse(t, w.Get("/notifications", webtest.Bearer(w.Bob)...).Body.String())
	if bob.Find(`[data-testid=idle-task]`).Length() != 0 || bob.Find(`[data-testid=notes-none]`).Length() != 1 {
		t.Errorf("bob sees alice's idle task or notes")
	}

	// Keep through the page: twice, then the cap is refused with the page and its message.
	keep := "/notifications/tasks/" + strconv.FormatInt(w.Task.ID, 10) + "/keep"
	for i := range 2 {
		resp := w.Form(keep, url.Values{}, webtest.Bearer(w.Alice)...)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/notifications?kept=") {
			t.Fatalf("keep %d = %d → %q", i+1, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	resp := w.Form(keep, url.Values{}, webtest.Bearer(w.Alice)...)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("third keep = %d, want 409", resp.StatusCode)
	}
	page := webtest.DocOf(t, resp)
	if msg := page.Find(`[data-testid=notes-error]`).Text(); !strings.Contains(msg, "already kept 2 times today") {
		t.Errorf("cap message = %q", msg)
	}
	if _, off := page.Find(`[data-testid=keep]`).Attr("disabled"); !off {
		t.Errorf("keep button still enabled with no keeps left")
	}
	loc := "/notifications?kept=" + strconv.FormatInt(w.Task.ID, 10) + "&until=" + strconv.FormatInt(webtest.T0.Add(2*time.Hour).Unix(), 10)
	kept := webtest.Parse(t, w.Get(loc, webtest.Bearer(w.Alice)...).Body.String())
	if n := kept.Find(`[data-testid=notice]`).Text(); n != "Task #"+strconv.FormatInt(w.Task.ID, 10)+" keeps its cards until 11:00." {
		t.Errorf("notice = %q", n)
	}
	if got := kept.Find(`[data-testid=idle-task]`).Text(); !strings.Contains(got, "kept until 11:00:00") {
		t.Errorf("idle task = %q, want kept until 11:00:00", strings.Join(strings.Fields(got), " "))
	}

	// Another project's member cannot release it through the page either.
	release := "/notifications/tasks/" + strconv.FormatInt(w.Task.ID, 10) + "/release"
	if resp := w.Form(release, url.Values{}, webtest.Bearer(w.Bob)...); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob's release = %d, want 404", resp.StatusCode)
	}
	if resp := w.Form(release, url.Values{}, webtest.Bearer(w.Alice)...); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("release = %d, want 303", resp.StatusCode)
	}

	// Mark all read.
	if resp := w.Form("/notifications/read", url.Values{}, webtest.Bearer(w.Alice)...); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("mark read = %d", resp.StatusCode)
	}
	list, _ := w.Store.Notifications(ctx, w.AliceID, 10)
	for _, n := range list {
		if n.ReadAt == nil {
			t.Errorf("notification %q still unread", n.Message)
		}
	}
}
