package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestTaskPage shows a running task to a member of its project: state, owner, history, its
// card with the utilization chart, log and the Cancel button; htmx gets the live part only.
func TestTaskPage(t *testing.T) {
	s := newServer(t)
	s.projects("vision", "nlp")
	member := s.member("alice", "vision")
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	tk := s.create(task("train-7b").ready(), t0.Add(-time.Hour))
	s.place(tk, t0.Add(-50*time.Minute), uuidOf("n1", 0))
	s.setNow(t0)
	if err := s.store.SetPrice(t.Context(), models.Price{Spec: "A100-80G", FromMonth: "2026-03", RateFen: 800}, t0); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(tk.ID, 10)

	w := s.get("/tasks/"+id, bearer(member)...)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /tasks/%s = %d: %s", id, w.Code, w.Body)
	}
	doc := parse(t, w.Body.String())
	got := map[string]string{
		"state":  doc.Find(`[data-testid=task-state]`).Text(),
		"owner":  doc.Find(`[data-testid=task-owner]`).Text(),
		"card":   doc.Find(`[data-testid=task-card]`).AttrOr("data-uuid", ""),
		"cancel": doc.Find(`[data-testid=task-cancel]`).Text(),
		"hours":  doc.Find(`[data-testid=task-card-hours]`).Text(),
		"cost":   doc.Find(`[data-testid=task-cost]`).Text(),
	}
	want := map[string]string{"state": "starting", "owner": "alice", "card": uuidOf("n1", 0), "cancel": "Cancel task",
		"hours": "0.8 used of — estimated",
		"cost":  "≈ ¥6.67 at ¥8.00 per card-hour (the bill decides)"}
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

	w = s.get("/tasks/"+id, append(bearer(member), "HX-Request", "true")...)
	if !strings.HasPrefix(strings.TrimSpace(w.Body.String()), `<div id="task-live"`) {
		t.Errorf("htmx refresh = %.80q…, want the live part only", w.Body.String())
	}
}

// TestTaskPageOutsider: someone outside the task's project sees who holds what but not the
// log, the command or the buttons.
func TestTaskPageOutsider(t *testing.T) {
	s := newServer(t)
	s.projects("vision", "nlp")
	other := s.member("bob", "nlp")
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	tk := s.create(task("secret-run").ready(), t0)
	w := s.get("/tasks/"+strconv.FormatInt(tk.ID, 10), bearer(other)...)
	if w.Code != http.StatusOK {
		t.Fatalf("GET = %d", w.Code)
	}
	doc := parse(t, w.Body.String())
	for _, sel := range []string{"task-log", "task-command", "task-actions"} {
		if doc.Find(`[data-testid=`+sel+`]`).Length() != 0 {
			t.Errorf("an outsider sees %s", sel)
		}
	}
	if got := doc.Find(`[data-testid=task-owner]`).Text(); got != "alice" {
		t.Errorf("owner = %q, want alice", got)
	}
	if w := s.get("/tasks/"+strconv.FormatInt(tk.ID, 10)+"/log", bearer(other)...); w.Code != http.StatusNotFound {
		t.Errorf("an outsider's GET of the log = %d, want 404", w.Code)
	}
}

// TestTaskPageCancel: the Cancel button cancels a waiting task and shows it again; a task
// of another project cannot be cancelled; a bad id names the field.
func TestTaskPageCancel(t *testing.T) {
	s := newServer(t)
	s.projects("vision", "nlp")
	member := s.member("alice", "vision")
	other := s.member("bob", "nlp")
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	tk := s.create(task("train").ready(), t0)
	path := "/tasks/" + strconv.FormatInt(tk.ID, 10)
	if w := s.do(req{method: http.MethodPost, path: path + "/cancel", hdr: pairs(bearer(other))}); w.Code != http.StatusNotFound {
		t.Errorf("cancel by an outsider = %d, want 404", w.Code)
	}
	w := s.do(req{method: http.MethodPost, path: path + "/cancel", hdr: pairs(bearer(member))})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != path {
		t.Fatalf("cancel = %d to %q, want 303 to %s", w.Code, w.Header().Get("Location"), path)
	}
	doc := parse(t, s.get(path, bearer(member)...).Body.String())
	if got := doc.Find(`[data-testid=task-live]`).AttrOr("data-state", ""); got != models.TaskCancelled {
		t.Errorf("state after cancel = %q", got)
	}
	if doc.Find(`[data-testid=task-cancel]`).Length() != 0 {
		t.Error("a cancelled task still has a Cancel button")
	}
	if w := s.do(req{method: http.MethodPost, path: path + "/cancel", hdr: pairs(bearer(member))}); w.Code != http.StatusConflict {
		t.Errorf("second cancel = %d, want 409", w.Code)
	}
	if w := s.get("/tasks/x", bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "id") {
		t.Errorf("GET /tasks/x = %d %s, want 400 naming id", w.Code, w.Body)
	}
}

// TestTasksPage lists tasks with their outcome, filtered by mine, state and dates, in pages;
// bad filter values name their field.
func TestTasksPage(t *testing.T) {
	s := newServer(t)
	s.projects("vision", "nlp")
	member := s.member("alice", "vision")
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	a := s.create(task("mine-1").ready(), t0.Add(-48*time.Hour))
	b := task("theirs").ready()
	b.nt.Owner = "carol"
	s.create(b, t0)
	s.create(task("nlp-task").of("nlp").ready(), t0)
	s.do(req{method: http.MethodPost, path: "/tasks/" + strconv.FormatInt(a.ID, 10) + "/cancel", hdr: pairs(bearer(member))})

	rows := func(path string) []string {
		t.Helper()
		w := s.get(path, bearer(member)...)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d: %s", path, w.Code, w.Body)
		}
		var out []string
		parse(t, w.Body.String()).Find(`[data-testid=task-row]`).Each(func(_ int, r *goquery.Selection) {
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
		if w := s.get(path, bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), field) {
			t.Errorf("GET %s = %d %s, want 400 naming %s", path, w.Code, w.Body, field)
		}
	}
}

// TestTaskResubmit: Resubmit opens the submit form filled from the task, with its
// environment's names but not their secret values; someone who cannot run the task gets 404.
func TestTaskResubmit(t *testing.T) {
	s := newServer(t)
	s.projects("vision", "nlp")
	member := s.member("alice", "vision")
	other := s.member("bob", "nlp")
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	b := task("train").gpus(2).ready()
	b.nt.Queue, b.nt.Env = models.QueueShort, map[string]string{"TOKEN": "s3cret"}
	tk := s.create(b, t0)
	path := "/queue?resubmit=" + strconv.FormatInt(tk.ID, 10)
	w := s.get(path, bearer(member)...)
	doc := parse(t, w.Body.String())
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
	if w := s.get(path, bearer(other)...); w.Code != http.StatusNotFound {
		t.Errorf("resubmit by an outsider = %d, want 404", w.Code)
	}
	if w := s.get("/queue?resubmit=x", bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "resubmit") {
		t.Errorf("GET /queue?resubmit=x = %d, want 400 naming resubmit", w.Code)
	}
}

// TestServiceResubmit: a service's Resubmit fills the form's service group and leaves the
// runtime limit empty, so the form submits a service again.
func TestServiceResubmit(t *testing.T) {
	s := newServer(t)
	s.projects("vision")
	member := s.member("alice", "vision")
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	b := task("chat").ready()
	b.nt.Kind = models.TaskKindService
	b.nt.Service = models.ServiceSpec{Model: "qwen", Replicas: 2, MetricsPort: 8000, HealthPath: "/health", TTFTTargetMS: 300}
	tk := s.create(b, t0)
	doc := parse(t, s.get("/queue?resubmit="+strconv.FormatInt(tk.ID, 10), bearer(member)...).Body.String())
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
