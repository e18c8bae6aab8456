package tasks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestPathCheckWithoutDataRoots: on a server that checks no paths (no --data-root), a data
// check naming a path is refused at submit with 422 naming data_check — through the API, its
// dry run, a template's submit, and the submit form in both languages, whose help then asks
// for a URL — while a URL check is taken.
func TestPathCheckWithoutDataRoots(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	s := f.S
	w := s.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision),
		`{"name": "nightly", "gpus": 1, "command": ["x"], "data_check": {"path": "/data/nightly/_READY"}}`, webtest.Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create template = %d %s", w.Code, w.Body)
	}
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	s.Store.SetDataRoots(nil) // restarted without --data-root

	path := `{"path":"/data/imagenet/_READY"}`
	for what, body := range map[string]string{
		"submit":          webtest.TaskBody(map[string]string{"owner": "", "data_ready": "false", "data_check": path}),
		"submit, default": webtest.TaskBody(map[string]string{"owner": "", "data_ready": "", "data_check": path}),
		"template":        fmt.Sprintf(`{"project": "vision", "name": "n", "template": %d}`, tpl.ID),
	} {
		for _, p := range []string{"/api/v1/tasks", "/api/v1/tasks?dry_run=1"} {
			webtest.WantAPIError(t, what+": POST "+p, s.Post(p, body, webtest.Bearer(f.Member)...), http.StatusUnprocessableEntity, "data_check")
		}
	}
	if w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"owner": "", "data_ready": "false",
		"data_check": `{"url":"https://data.example.com/ready"}`}), webtest.Bearer(f.Member)...); w.Code != http.StatusCreated {
		t.Errorf("a URL check = %d %s, want 201", w.Code, w.Body)
	}
	n := s.TaskCount()

	form := url.Values{"project": {"vision"}, "name": {"probe"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"},
		"command": {"x"}, "data_check": {"/data/imagenet/_READY"}}
	for lang, want := range map[string][2]string{
		"en":    {"this server checks no paths", "This server checks no paths"},
		"zh-CN": {"本服务器不检查路径", "本服务器不检查路径"},
	} {
		r := s.Form("/queue/tasks", form, append(webtest.Bearer(f.Member), "Accept-Language", lang)...)
		doc := webtest.DocOf(t, r)
		got := doc.Find(`[data-testid=field-error][data-field=data_check]`).Text()
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, want[0]) {
			t.Errorf("%s: form with a path check = %d %q, want 422 saying %q beside data_check", lang, r.StatusCode, got, want[0])
		}
		if help := doc.Find(`#help-data_check`).Text(); !strings.Contains(help, want[1]) {
			t.Errorf("%s: data check help = %q, want it to say %q", lang, help, want[1])
		}
	}
	if got := s.TaskCount(); got != n {
		t.Errorf("tasks after refused submits = %d, want %d", got, n)
	}
}

// TestSilentDataCheck: a task whose data check has not answered for longer than
// models.DataCheckSilentAfter (since its submit, or since its last answer) says so — in its
// queue row's reason on the queue page and its own page, in both languages, and in the API
// (the queue entry's reason_detail and reason_text, the task's data_check_silent_s) — while a
// task whose check answered a minute ago just waits for its data. The task's page names its
// check and when it last answered.
func TestSilentDataCheck(t *testing.T) {
	q := newQEnv(t)
	ts := qFleet(q)
	check := models.DataCheck{URL: "https://data.example.com/ready"}
	silent := q.qCreate(models.NewTask{Project: "vision", Name: "silent", GPUs: 1, DataCheck: check}, qT0.Add(-12*time.Minute))
	answered := q.qCreate(models.NewTask{Project: "vision", Name: "answered", GPUs: 1, DataCheck: check}, qT0.Add(-12*time.Minute))
	if err := q.store.MarkDataChecked(context.Background(), []int64{answered.ID}, qT0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int64]string{
		"en":    {silent.ID: "Data not ready: its data check has not answered for 12m", answered.ID: "Data not ready", ts.noData.ID: "Data not ready"},
		"zh-CN": {silent.ID: "数据未就绪：数据检查已 12分钟 没有回应", answered.ID: "数据未就绪"},
	}
	answers := map[string][2]string{"en": {"no answer yet", "last answered 09:59:00"}, "zh-CN": {"尚无回应", "最近一次回应 09:59:00"}}
	for lang, texts := range want {
		doc := qDoc(t, q.qGet("/queue", "Accept-Language", lang))
		for id, text := range texts {
			row := doc.Find(fmt.Sprintf(`[data-testid=queue-row][data-task-id="%d"]`, id))
			if got := strings.TrimSpace(row.Find(`[data-testid=reason]`).Text()); got != text {
				t.Errorf("%s: /queue reason of task %d = %q, want %q", lang, id, got, text)
			}
		}
		page := qDoc(t, q.qGet(fmt.Sprintf("/tasks/%d", silent.ID), "Accept-Language", lang))
		if got := strings.TrimSpace(page.Find(`[data-testid=task-wait] [data-testid=reason]`).Text()); got != texts[silent.ID] {
			t.Errorf("%s: task page reason = %q, want %q", lang, got, texts[silent.ID])
		}
		for id, facts := range map[int64][]string{silent.ID: {check.URL, answers[lang][0]}, answered.ID: {check.URL, answers[lang][1]}} {
			page := qDoc(t, q.qGet(fmt.Sprintf("/tasks/%d", id), "Accept-Language", lang))
			got := page.Find(`[data-testid=task-data-check]`).Text()
			for _, f := range facts {
				if !strings.Contains(got, f) {
					t.Errorf("%s: task %d data check = %q, want it to say %q", lang, id, got, f)
				}
			}
		}
		got := webtest.Decode[api.Queue](t, q.qGet("/api/v1/queue", "Accept-Language", lang))
		for _, e := range got.Tasks {
			text, ok := texts[e.ID]
			if !ok {
				continue
			}
			detail := ""
			if e.ID == silent.ID {
				detail = "data-check-silent"
			}
			if e.Reason != api.ReasonDataNotReady || e.ReasonDetail != detail || e.ReasonText != text {
				t.Errorf("%s: queue entry of task %d = %s %q %q, want data-not-ready %q %q", lang, e.ID, e.Reason, e.ReasonDetail, e.ReasonText, detail, text)
			}
		}
	}
	for id, want := range map[int64]int64{silent.ID: 12 * 60, answered.ID: 0, ts.short.ID: 0} {
		got := webtest.Decode[api.Task](t, q.qGet(fmt.Sprintf("/api/v1/tasks/%d", id)))
		if got.DataCheckSilentS != want {
			t.Errorf("task %d data_check_silent_s = %d, want %d", id, got.DataCheckSilentS, want)
		}
	}
}
