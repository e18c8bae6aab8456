package tasks_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestIdleAnswerLeadOrOwner: an idle notice is answered by the task's owner or its project's
// lead (由负责人确认是否继续), through the API and the notifications page alike; a member of
// the project who is neither is refused with 403 and changes nothing, and someone of another
// project does not see the task (404).
func TestIdleAnswerLeadOrOwner(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	ctx := context.Background()
	id := strconv.FormatInt(w.Task.ID, 10)
	for _, verb := range []string{"keep", "release"} {
		if r := w.Post(w.Path(verb), "", webtest.Bearer(w.Carol)...); r.Code != http.StatusForbidden || !strings.Contains(r.Body.String(), "owner") {
			t.Errorf("carol, a member, answers %s = %d %s, want 403 saying who may", verb, r.Code, r.Body)
		}
		if r := w.Post(w.Path(verb), "", webtest.Bearer(w.Bob)...); r.Code != http.StatusNotFound {
			t.Errorf("bob, of another project, answers %s = %d, want 404", verb, r.Code)
		}
		if resp := w.Form("/notifications/tasks/"+id+"/"+verb, url.Values{}, webtest.Bearer(w.Carol)...); resp.StatusCode != http.StatusForbidden {
			t.Errorf("carol answers %s on the page = %d, want 403", verb, resp.StatusCode)
		}
	}
	if rs, _ := w.Store.TaskReclaims(ctx); rs[w.Task.ID].KeepsOnDay != 0 || rs[w.Task.ID].NoticeAt == nil {
		t.Errorf("refused answers wrote %+v", rs[w.Task.ID])
	}
	if row, _ := w.Store.TaskByID(ctx, w.Task.ID); row.StopState != "" {
		t.Errorf("a refused release stopped the task: %q", row.StopReason)
	}

	// The lead keeps it on the page, then releases it through the API.
	resp := w.Form("/notifications/tasks/"+id+"/keep", url.Values{}, webtest.Bearer(w.Lena)...)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/notifications?kept="+id) {
		t.Fatalf("lena keeps on the page = %d → %q, want 303 to the notice", resp.StatusCode, resp.Header.Get("Location"))
	}
	if rs, _ := w.Store.TaskReclaims(ctx); rs[w.Task.ID].KeepsOnDay != 1 {
		t.Errorf("after lena's keep: %+v, want one keep", rs[w.Task.ID])
	}
	if r := w.Post(w.Path("release"), "", webtest.Bearer(w.Lena)...); r.Code != http.StatusOK {
		t.Fatalf("lena releases = %d %s, want 200", r.Code, r.Body)
	}
	row, _ := w.Store.TaskByID(ctx, w.Task.ID)
	if row.StopState != models.TaskReclaimed || row.StopReason != models.ReleasedReason("lena") {
		t.Errorf("released task = %q %q, want reclaimed, released by lena", row.StopState, row.StopReason)
	}
}

// TestIdleTasksOfALead: the lead's notifications page lists the project's idle task with who
// submitted it and the keep and release buttons, and the task's page offers them too; a
// member who is neither owner nor lead sees neither, in English and in Chinese.
func TestIdleTasksOfALead(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	id := strconv.FormatInt(w.Task.ID, 10)
	for _, c := range []struct {
		lang, owner string
	}{{"en", "submitted by alice"}, {"zh-CN", "提交人 alice"}} {
		hdr := append(webtest.Bearer(w.Lena), "Cookie", "kashi_lang="+c.lang)
		doc := webtest.Parse(t, w.Get("/notifications", hdr...).Body.String())
		idle := doc.Find(`[data-testid=idle-task]`)
		if idle.Length() != 1 || idle.AttrOr("data-task", "") != id {
			t.Fatalf("%s: lena's idle tasks = %d, want alice's task", c.lang, idle.Length())
		}
		if got := idle.Find(`[data-testid=idle-owner]`).Text(); got != c.owner {
			t.Errorf("%s: idle task's owner = %q, want %q", c.lang, got, c.owner)
		}
		if idle.Find(`[data-testid=keep]`).Length() != 1 || idle.Find(`[data-testid=release]`).Length() != 1 {
			t.Errorf("%s: lena's idle task has no keep or release button", c.lang)
		}
		page := webtest.Parse(t, w.Get("/tasks/"+id, hdr...).Body.String())
		if page.Find(`[data-testid=task-keep]`).Length() != 1 || page.Find(`[data-testid=task-release]`).Length() != 1 {
			t.Errorf("%s: the task's page offers lena no keep or release", c.lang)
		}
	}
	carol := webtest.Parse(t, w.Get("/notifications", webtest.Bearer(w.Carol)...).Body.String())
	if n := carol.Find(`[data-testid=idle-task]`).Length(); n != 0 {
		t.Errorf("carol, neither owner nor lead, is offered %d idle tasks to answer", n)
	}
	page := webtest.Parse(t, w.Get("/tasks/"+id, webtest.Bearer(w.Carol)...).Body.String())
	if page.Find(`[data-testid=task-keep]`).Length() != 0 || page.Find(`[data-testid=task-actions]`).Length() != 1 {
		t.Errorf("carol's task page: keep offered %d times, actions %d; want her the other actions only",
			page.Find(`[data-testid=task-keep]`).Length(), page.Find(`[data-testid=task-actions]`).Length())
	}
}

// TestIdleNoticeDeadline: an idle notice says when the cards will be reclaimed unless kept —
// the notice's time plus the task's grace — on the notifications page and on the task's
// page, in both languages; past that time, that the scaling loop's next look reclaims them.
func TestIdleNoticeDeadline(t *testing.T) {
	w := webtest.NewIdleWorld(t) // noticed at 08:55, the default grace is 30 minutes
	id := strconv.FormatInt(w.Task.ID, 10)
	for lang, want := range map[string]string{
		"en":    "cards reclaimed at 09:25:00 (in 25m) unless kept",
		"zh-CN": "除非保留，卡将于 09:25:00 回收（还有 25分钟）",
	} {
		hdr := append(webtest.Bearer(w.Alice), "Cookie", "kashi_lang="+lang)
		notes := webtest.Parse(t, w.Get("/notifications", hdr...).Body.String())
		if got := notes.Find(`[data-testid=idle-task] [data-testid=idle-deadline]`).Text(); got != want {
			t.Errorf("%s: the notice's deadline = %q, want %q", lang, got, want)
		}
		page := webtest.Parse(t, w.Get("/tasks/"+id, hdr...).Body.String())
		if got := page.Find(`[data-testid=task-deadline]`).Text(); got != want {
			t.Errorf("%s: the task page's deadline = %q, want %q", lang, got, want)
		}
	}
	w.SetNow(webtest.T0.Add(26 * time.Minute))
	notes := webtest.Parse(t, w.Get("/notifications", webtest.Bearer(w.Alice)...).Body.String())
	if got, want := notes.Find(`[data-testid=idle-deadline]`).Text(), "cards reclaimed at the scaling loop's next look unless kept"; got != want {
		t.Errorf("past the deadline: %q, want %q", got, want)
	}
}

// TestReleaseIsReleased: cards released with "release now" are recorded as released by whoever
// answered, not as reclaimed: the task's page and the tasks list name its state "released"
// (已释放), its history says who released it, and its owner is told once that its cards were
// released — no "task reclaimed" notification.
func TestReleaseIsReleased(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	ctx := context.Background()
	id := strconv.FormatInt(w.Task.ID, 10)
	if resp := w.Form("/notifications/tasks/"+id+"/release", url.Values{}, webtest.Bearer(w.Lena)...); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("lena releases = %d", resp.StatusCode)
	}
	state := func(lang string) (page, list string) {
		hdr := append(webtest.Bearer(w.Alice), "Cookie", "kashi_lang="+lang)
		doc := webtest.Parse(t, w.Get("/tasks/"+id, hdr...).Body.String())
		rows := webtest.Parse(t, w.Get("/tasks", hdr...).Body.String())
		return doc.Find(`[data-testid=task-state]`).Text(), rows.Find(`[data-testid=task-row][data-task-id="` + id + `"] [data-testid=task-row-state]`).Text()
	}
	nodes, _ := w.Store.NodeNames(ctx)
	for node := range nodes {
		if err := w.Store.ReportTaskStatus(ctx, node, w.Task.ID, models.TaskReport{State: models.ReportExited, ExitCode: 143,
			TS: webtest.T0}, webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	for lang, want := range map[string][2]string{"en": {"released", "cards released by lena"}, "zh-CN": {"已释放", "由 lena 释放卡"}} {
		page, list := state(lang)
		if page != want[0] || list != want[0] {
			t.Errorf("%s: state on the page %q, in the list %q, want %q", lang, page, list, want[0])
		}
		doc := webtest.Parse(t, w.Get("/tasks/"+id, append(webtest.Bearer(w.Alice), "Cookie", "kashi_lang="+lang)...).Body.String())
		last := doc.Find(`[data-testid=task-event]`).Last()
		if got := strings.Join(strings.Fields(last.Text()), " "); !strings.HasSuffix(got, want[0]+" "+want[1]) {
			t.Errorf("%s: last event = %q, want it to end %q", lang, got, want[0]+" "+want[1])
		}
	}
	// The audit log records a release, in words on the page.
	if log := w.Get("/audit", "Cookie", "kashi_lang=zh-CN").Body.String(); !strings.Contains(log, "已释放") {
		t.Errorf("the audit log does not record the release as 已释放")
	}
	all, _ := w.Store.Notifications(ctx, w.AliceID, 10)
	var kinds []string
	for _, n := range all {
		kinds = append(kinds, n.Kind)
	}
	if strings.Join(kinds, ",") != models.NoteTaskReleased {
		t.Errorf("alice's notifications = %v, want one %s", kinds, models.NoteTaskReleased)
	}
	for lang, want := range map[string]string{"en": "Cards released", "zh-CN": "卡已释放"} {
		doc := webtest.Parse(t, w.Get("/notifications", append(webtest.Bearer(w.Alice), "Cookie", "kashi_lang="+lang)...).Body.String())
		if got := doc.Find(`[data-testid=notification] .badge`).Text(); got != want {
			t.Errorf("%s: the notification's kind = %q, want %q", lang, got, want)
		}
	}
}
