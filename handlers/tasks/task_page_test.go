package tasks_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestTaskPage shows a running task to a member of its project: state, owner, history, its
// card with the utilization chart, log and the Cancel button; htmx gets the live part only.
func TestTaskPage(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	member := s.Member("alice", "vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	tk := s.Create(webtest.Task("train-7b").Ready(), webtest.T0.Add(-time.Hour))
	s.Place(tk, webtest.T0.Add(-50*time.Minute), webtest.UUIDOf("n1", 0))
	s.SetNow(webtest.T0)
	if err := s.Store.SetPrice(t.Context(), models.Price{Spec: "A100-80G", FromMonth: "2026-03", RateFen: 800}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(tk.ID, 10)

	w := s.Get("/tasks/"+id, webtest.Bearer(member)...)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /tasks/%s = %d: %s", id, w.Code, w.Body)
	}
	doc := webtest.Parse(t, w.Body.String())
	got := map[string]string{
		"state":  doc.Find(`[data-testid=task-state]`).Text(),
		"owner":  doc.Find(`[data-testid=task-owner]`).Text(),
		"card":   doc.Find(`[data-testid=task-card]`).AttrOr("data-uuid", ""),
		"cancel": doc.Find(`[data-testid=task-cancel]`).Text(),
		"hours":  doc.Find(`[data-testid=task-card-hours]`).Text(),
		"cost":   doc.Find(`[data-testid=task-cost]`).Text(),
	}
	// A card's UUID, what its node registers, is an admin's to see.
	want := map[string]string{"state": "starting", "owner": "alice", "card": "", "cancel": "Cancel task",
		"hours": "0.8 used of — estimated",
		"cost":  "≈ ¥6.67 at ¥8.00 per card-hour (the bill decides)"}
	if card := webtest.Parse(t, s.Get("/tasks/"+id).Body.String()).Find(`[data-testid=task-card]`).AttrOr("data-uuid", ""); card != webtest.UUIDOf("n1", 0) {
		t.Errorf("the task's card for an admin = %q, want its UUID", card)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task page (-want +got):\n%s", diff)
	}
	var events []string
	doc.Find(`[data-testid=task-event]`).Each(func(_ int, e *goquery.Selection) { events = append(events, e.AttrOr("data-to", "")) })
	if diff := cmp.Diff([]string{"queued", "starting"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := doc.Find(`form:has([data-testid=task-cancel])`).AttrOr("data-confirm", ""); !strings.HasPrefix(got, "Stop task #"+id+"?") {
		t.Errorf("cancel of a started task asks %q, want it to warn that the task is stopped", got)
	}
	if doc.Find(`[data-testid=task-log]`).Length() != 1 {
		t.Error("no log on the task page")
	}

	w = s.Get("/tasks/"+id, append(webtest.Bearer(member), "HX-Request", "true")...)
	if !strings.HasPrefix(strings.TrimSpace(w.Body.String()), `<div id="task-live"`) {
		t.Errorf("htmx refresh = %.80q…, want the live part only", w.Body.String())
	}
}

// TestTaskPageOutsider: someone outside the task's project sees who holds what but not the
// log, the command or the buttons.
func TestTaskPageOutsider(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	other := s.Member("bob", "nlp")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	tk := s.Create(webtest.Task("secret-run").Ready(), webtest.T0)
	w := s.Get("/tasks/"+strconv.FormatInt(tk.ID, 10), webtest.Bearer(other)...)
	if w.Code != http.StatusOK {
		t.Fatalf("GET = %d", w.Code)
	}
	doc := webtest.Parse(t, w.Body.String())
	for _, sel := range []string{"task-log", "task-command", "task-actions"} {
		if doc.Find(`[data-testid=`+sel+`]`).Length() != 0 {
			t.Errorf("an outsider sees %s", sel)
		}
	}
	if got := doc.Find(`[data-testid=task-owner]`).Text(); got != "alice" {
		t.Errorf("owner = %q, want alice", got)
	}
	if w := s.Get("/tasks/"+strconv.FormatInt(tk.ID, 10)+"/log", webtest.Bearer(other)...); w.Code != http.StatusNotFound {
		t.Errorf("an outsider's GET of the log = %d, want 404", w.Code)
	}
}

// TestTaskPageCancel: the Cancel button cancels a waiting task and shows it again; a task
// of another project cannot be cancelled; a bad id names the field.
func TestTaskPageCancel(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	member := s.Member("alice", "vision")
	other := s.Member("bob", "nlp")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	tk := s.Create(webtest.Task("train").Ready(), webtest.T0)
	path := "/tasks/" + strconv.FormatInt(tk.ID, 10)
	if w := s.Do(webtest.Req{Method: http.MethodPost, Path: path + "/cancel", Hdr: webtest.Pairs(webtest.Bearer(other))}); w.Code != http.StatusNotFound {
		t.Errorf("cancel by an outsider = %d, want 404", w.Code)
	}
	w := s.Do(webtest.Req{Method: http.MethodPost, Path: path + "/cancel", Hdr: webtest.Pairs(webtest.Bearer(member))})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != path {
		t.Fatalf("cancel = %d to %q, want 303 to %s", w.Code, w.Header().Get("Location"), path)
	}
	doc := webtest.Parse(t, s.Get(path, webtest.Bearer(member)...).Body.String())
	if got := doc.Find(`[data-testid=task-live]`).AttrOr("data-state", ""); got != models.TaskCancelled {
		t.Errorf("state after cancel = %q", got)
	}
	if doc.Find(`[data-testid=task-cancel]`).Length() != 0 {
		t.Error("a cancelled task still has a Cancel button")
	}
	if w := s.Do(webtest.Req{Method: http.MethodPost, Path: path + "/cancel", Hdr: webtest.Pairs(webtest.Bearer(member))}); w.Code != http.StatusConflict {
		t.Errorf("second cancel = %d, want 409", w.Code)
	}
	if w := s.Get("/tasks/x", webtest.Bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "id") {
		t.Errorf("GET /tasks/x = %d %s, want 400 naming id", w.Code, w.Body)
	}
}

// TestTasksPage lists tasks with their outcome, filtered by mine, state and dates, in pages;
// bad filter values name their field.
func TestTasksPage(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	member := s.Member("alice", "vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	a := s.Create(webtest.Task("mine-1").Ready(), webtest.T0.Add(-48*time.Hour))
	b := webtest.Task("theirs").Ready()
	b.Nt.Owner = "carol"
	s.Create(b, webtest.T0)
	s.Create(webtest.Task("nlp-task").Of("nlp").Ready(), webtest.T0)
	s.Do(webtest.Req{Method: http.MethodPost, Path: "/tasks/" + strconv.FormatInt(a.ID, 10) + "/cancel", Hdr: webtest.Pairs(webtest.Bearer(member))})

	rows := func(path string) []string {
		t.Helper()
		w := s.Get(path, webtest.Bearer(member)...)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d: %s", path, w.Code, w.Body)
		}
		var out []string
		webtest.Parse(t, w.Body.String()).Find(`[data-testid=task-row]`).Each(func(_ int, r *goquery.Selection) {
			out = append(out, r.Find(`[data-testid=task-name]`).Text()+"/"+r.AttrOr("data-state", ""))
		})
		return out
	}
	tests := map[string]struct {
		path string
		want []string
	}{
		"all of my projects": {"/tasks", []string{"theirs/queued", "mine-1/cancelled"}},
		"mine":               {"/tasks?mine=1", []string{"mine-1/cancelled"}},
		"ended":              {"/tasks?state=cancelled", []string{"mine-1/cancelled"}},
		"dates":              {"/tasks?from=2026-03-02&to=2026-03-02", []string{"theirs/queued"}},
		"second page empty":  {"/tasks?page=2", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rows(tc.path)); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", tc.path, diff)
			}
		})
	}
	for _, path := range []string{"/tasks?from=yesterday", "/tasks?page=0", "/tasks?state=bogus"} {
		field := strings.SplitN(strings.TrimPrefix(path, "/tasks?"), "=", 2)[0]
		if w := s.Get(path, webtest.Bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), field) {
			t.Errorf("GET %s = %d %s, want 400 naming %s", path, w.Code, w.Body, field)
		}
	}
}

// TestTasksPageEmpty: an empty tasks page says why. A viewer, who belongs to no project,
// is told whose tasks the list shows and where every project's tasks are (the queue, the
// board), not "no tasks match this filter" with no filter set; a member of a project without
// tasks is told it has none; a filter that selects nothing says so. Both languages.
func TestTasksPageEmpty(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	s.Create(webtest.Task("vision-task").Ready(), webtest.T0)
	viewer := s.UserToken("vic", models.RoleViewer)
	member := s.Member("nora", "nlp")
	tests := map[string]struct {
		token, path string
		want        map[string]string
		links       []string
	}{
		"a viewer": {viewer, "/tasks", map[string]string{
			"en":    "This list shows the tasks of the projects you belong to, and you belong to none.",
			"zh-CN": "这里列出你所在项目的任务，而你不属于任何项目。"}, []string{"/queue", "/"}},
		"a member of a project without tasks": {member, "/tasks", map[string]string{
			"en": "Your projects have no tasks yet.", "zh-CN": "你所在的项目还没有任务。"}, nil},
		"a filter": {member, "/tasks?state=running", map[string]string{
			"en": "No tasks match this filter.", "zh-CN": "没有符合条件的任务。"}, nil},
		"a viewer's filter": {viewer, "/tasks?mine=1", map[string]string{
			"en": "No tasks match this filter.", "zh-CN": "没有符合条件的任务。"}, nil},
	}
	for name, tc := range tests {
		for lang, want := range tc.want {
			w := s.Get(tc.path, append(webtest.Bearer(tc.token), "Accept-Language", lang)...)
			if w.Code != http.StatusOK {
				t.Fatalf("%s: GET %s = %d", name, tc.path, w.Code)
			}
			empty := webtest.Parse(t, w.Body.String()).Find(`[data-testid=tasks-empty]`)
			if got := strings.Join(strings.Fields(empty.Text()), " "); !strings.HasPrefix(got, want) {
				t.Errorf("%s, %s: the empty list says %q, want %q", name, lang, got, want)
			}
			var links []string
			empty.Find("a").Each(func(_ int, a *goquery.Selection) { links = append(links, a.AttrOr("href", "")) })
			if diff := cmp.Diff(tc.links, links); diff != "" {
				t.Errorf("%s, %s: links (-want +got):\n%s", name, lang, diff)
			}
		}
	}
}

// TestTaskResubmit: Resubmit opens the submit form filled from the task, with its
// environment's names but not their secret values; someone who cannot run the task gets 404.
func TestTaskResubmit(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	member := s.Member("alice", "vision")
	other := s.Member("bob", "nlp")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	b := webtest.Task("train").GPUs(2).Ready()
	b.Nt.Queue, b.Nt.Env = models.QueueShort, map[string]string{"TOKEN": "s3cret"}
	tk := s.Create(b, webtest.T0)
	path := "/queue?resubmit=" + strconv.FormatInt(tk.ID, 10)
	w := s.Get(path, webtest.Bearer(member)...)
	doc := webtest.Parse(t, w.Body.String())
	got := map[string]string{
		"name":    doc.Find(`#f-name`).AttrOr("value", ""),
		"gpus":    doc.Find(`#f-gpus`).AttrOr("value", ""),
		"queue":   doc.Find(`#f-queue option[selected]`).AttrOr("value", ""),
		"command": doc.Find(`#f-command`).Text(),
		"env":     doc.Find(`#f-env`).Text(),
		"runtime": doc.Find(`#f-max_runtime_h`).AttrOr("value", ""),
	}
	want := map[string]string{"name": "train", "gpus": "2", "queue": "short", "command": "python\ntrain.py", "env": "TOKEN=\n", "runtime": "2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resubmit form (-want +got):\n%s", diff)
	}
	if strings.Contains(w.Body.String(), "s3cret") {
		t.Error("the resubmit form shows a secret environment value")
	}
	if w := s.Get(path, webtest.Bearer(other)...); w.Code != http.StatusNotFound {
		t.Errorf("resubmit by an outsider = %d, want 404", w.Code)
	}
	if w := s.Get("/queue?resubmit=x", webtest.Bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "resubmit") {
		t.Errorf("GET /queue?resubmit=x = %d, want 400 naming resubmit", w.Code)
	}
}

// TestServiceResubmit: a service's Resubmit fills the form's service group and leaves the
// runtime limit empty, so the form submits a service again.
func TestServiceResubmit(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	member := s.Member("alice", "vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	b := webtest.Task("chat").Ready()
	b.Nt.Kind = models.TaskKindService
	b.Nt.Service = models.ServiceSpec{Model: "qwen", Replicas: 2, MetricsPort: 8000, HealthPath: "/health", TTFTTargetMS: 300}
	tk := s.Create(b, webtest.T0)
	doc := webtest.Parse(t, s.Get("/queue?resubmit="+strconv.FormatInt(tk.ID, 10), webtest.Bearer(member)...).Body.String())
	got := map[string]string{}
	for _, in := range []string{"model", "replicas", "metrics_port", "metrics_path", "health_path", "ttft_target_ms", "max_runtime_h"} {
		got[in] = doc.Find("#f-"+in).AttrOr("value", "")
	}
	want := map[string]string{"model": "qwen", "replicas": "2", "metrics_port": "8000", "metrics_path": "/metrics",
		"health_path": "/health", "ttft_target_ms": "300", "max_runtime_h": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resubmit form of a service (-want +got):\n%s", diff)
	}
}

// TestTaskPageHidesHowOthersRun: someone outside a task's project sees on its page what the
// board and the queue show (name, state, cards), not how it ran: no command and no event's
// reason, which may quote it, as the API answers such a caller 404. Its own project sees both.
func TestTaskPageHidesHowOthersRun(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	member := s.Member("alice", "vision")
	outsider := s.Member("bob", "nlp")
	n := s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	tk := s.Create(webtest.Task("broken").Ready(), webtest.T0)
	s.Place(tk, webtest.T0, webtest.UUIDOf("n1", 0))
	const secret = "exec: /opt/secret-tool --key=abc123: no such file"
	if err := s.Store.ReportTaskStatus(context.Background(), n.ID, tk.ID,
		models.TaskReport{State: models.ReportFailedToStart, Message: secret, TS: webtest.T0.Add(time.Minute)}, webtest.T0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	path := "/tasks/" + strconv.FormatInt(tk.ID, 10)
	if w := s.Get("/api/v1/tasks/"+strconv.FormatInt(tk.ID, 10), webtest.Bearer(outsider)...); w.Code != http.StatusNotFound {
		t.Fatalf("the API to an outsider = %d, want 404", w.Code)
	}
	outside := s.Get(path, webtest.Bearer(outsider)...)
	if outside.Code != http.StatusOK {
		t.Fatalf("the page to an outsider = %d", outside.Code)
	}
	if strings.Contains(outside.Body.String(), "secret-tool") {
		t.Error("the task page shows an outsider the failure reason, with the task's command in it")
	}
	if own := s.Get(path, webtest.Bearer(member)...); !strings.Contains(own.Body.String(), "secret-tool") {
		t.Error("the task page does not show its own project the failure reason")
	}
}
