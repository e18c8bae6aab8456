package tasks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// fourWrong is the submit form with four wrong fields: no cards, a negative runtime, an
// environment line that is not KEY=VALUE and a relative working directory.
func fourWrong() url.Values {
	f := qForm()
	f.Set("gpus", "0")
	f.Set("max_runtime_h", "-3")
	f.Set("env", "NOEQUALS")
	f.Set("workdir", "relative/dir")
	return f
}

// TestQueueFormNamesEveryProblem: the submit form names all four problems at once — beside
// each input and in the form's status, in form order — whether submitted (a whole page
// without JavaScript, the form through htmx) or checked as it is typed, and a refused submit
// puts the cursor on the first bad field. The browser's own range checks are off (novalidate),
// so they never keep the check from being sent.
func TestQueueFormNamesEveryProblem(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	n := q.qTaskCount()
	want := []string{"gpus", "max_runtime_h", "env", "workdir"}
	for _, tc := range []struct {
		name, path string
		hdr        []string
		submit     bool
	}{
		{"plain submit", "/queue/tasks", nil, true},
		{"htmx submit", "/queue/tasks", []string{"HX-Request", "true"}, true},
		{"live check", "/queue/tasks/validate", []string{"HX-Request", "true"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := q.qPostForm(tc.path, fourWrong(), tc.hdr...)
			if w.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s = %d, want 422:\n%s", tc.path, w.Code, w.Body)
			}
			doc := qDoc(t, w)
			var beside, listed []string
			doc.Find(`[data-testid="field-error"]`).Each(func(_ int, s *goquery.Selection) {
				if strings.TrimSpace(s.Text()) != "" {
					beside = append(beside, s.AttrOr("data-field", ""))
				}
			})
			doc.Find(`[data-testid="form-problem-item"]`).Each(func(_ int, s *goquery.Selection) {
				listed = append(listed, s.AttrOr("data-field", ""))
			})
			if diff := cmp.Diff(want, beside); diff != "" {
				t.Errorf("inputs showing a problem (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, listed); diff != "" {
				t.Errorf("problems listed in the status (-want +got):\n%s", diff)
			}
			if got := doc.Find(`[data-testid="form-problem"]`).Text(); !strings.Contains(got, "4") {
				t.Errorf("status = %q, want it to count 4 fields", got)
			}
			if got := doc.Find(`[data-testid="form-problem-item"][data-field="gpus"] a`).AttrOr("href", ""); got != "#f-gpus" {
				t.Errorf("the GPUs problem links to %q, want #f-gpus", got)
			}
			if !tc.submit {
				return
			}
			var focused []string
			doc.Find(`[autofocus]`).Each(func(_ int, s *goquery.Selection) { focused = append(focused, s.AttrOr("name", "")) })
			if diff := cmp.Diff([]string{"gpus"}, focused); diff != "" {
				t.Errorf("inputs with autofocus (-want +got):\n%s", diff)
			}
			if _, ok := doc.Find(`#task-form`).Attr("novalidate"); !ok {
				t.Error("the form lets the browser's range checks hold back the live check: no novalidate")
			}
		})
	}
	if got := q.qTaskCount(); got != n {
		t.Errorf("tasks after refused submits = %d, want %d", got, n)
	}
}

// TestTaskAPINamesEveryProblem: the API refuses a submit with every bad field in errors, the
// first as field and error, as before.
func TestTaskAPINamesEveryProblem(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	body := `{"project":"vision","name":"x","gpus":0,"queue":"long","priority":"normal","max_runtime_s":-3,
		"command":["python"],"env":{"1X":"a"},"workdir":"relative/dir","data_ready":true}`
	w := q.qRequest(http.MethodPost, "/api/v1/tasks", "application/json", body)
	if w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("POST /api/v1/tasks = %d, want 422:\n%s", w.Code, w.Body)
	}
	var got api.Error
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, e := range got.Errors {
		fields = append(fields, e.Field)
		if !strings.HasPrefix(e.Error, e.Field+": ") {
			t.Errorf("errors[%s].error = %q, want it to begin with the field", e.Field, e.Error)
		}
	}
	if diff := cmp.Diff([]string{"gpus", "max_runtime_s", "env", "workdir"}, fields); diff != "" {
		t.Errorf("errors' fields (-want +got):\n%s", diff)
	}
	if got.Field != "gpus" || got.Error != got.Errors[0].Error {
		t.Errorf("field, error = %q, %q; want the first of errors", got.Field, got.Error)
	}
}

// TestQueueFormSubmittedLinksTheTask: the notice after a submit links to the task and says
// where it stands: its lane, position and expected start.
func TestQueueFormSubmittedLinksTheTask(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	f := qForm()
	f.Set("specs", "A100-80G") // the A100s are all held: it waits behind train-big
	f.Set("priority", "normal")
	f.Del("deferrable")
	f.Set("data_ready", "on")
	w := q.qPostForm("/queue/tasks", f, "HX-Request", "true")
	if w.Code != http.StatusOK {
		t.Fatalf("POST /queue/tasks = %d, want 200:\n%s", w.Code, w.Body)
	}
	doc := qDoc(t, w)
	link := doc.Find(`[data-testid="form-notice"] a[data-testid="form-created-link"]`)
	id := strings.TrimPrefix(link.AttrOr("href", ""), "/tasks/")
	if id == "" || !strings.Contains(link.Text(), "#"+id) {
		t.Fatalf("notice link = %q → %q, want the task's page", link.Text(), link.AttrOr("href", ""))
	}
	place := doc.Find(`[data-testid="form-created-place"]`)
	if got := place.Text(); place.AttrOr("data-position", "") != "3" || !strings.Contains(got, "Long lane, position 3") ||
		!strings.Contains(got, "expected to start in ~") {
		t.Errorf("notice place = %q (position %s), want the long lane's third (behind train-big and needs-data), with its expected start", got, place.AttrOr("data-position", ""))
	}
}

// TestTemplateAndScheduleFormsNameEveryProblem: the template form names every bad field at
// once — those it cannot read and those the store refuses of the rest — beside each input and
// in its list, the cursor on the first; the schedule form names a bad expression, zone and
// deadline together, in the preview as it is typed and after a submit.
func TestTemplateAndScheduleFormsNameEveryProblem(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	lead := webtest.Bearer(f.Lead)
	bad := url.Values{"name": {""}, "gpus": {"0"}, "queue": {"long"}, "priority": {"normal"}, "max_runtime_h": {"-3"},
		"command": {"train"}, "env_names": {"NOEQUALS=1"}, "workdir": {"relative/dir"}}
	r := f.S.Form(fmt.Sprintf("/projects/%d/templates", f.Vision), bad, lead...)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("POST a bad template = %d, want 422", r.StatusCode)
	}
	doc := webtest.DocOf(t, r)
	var listed []string
	doc.Find(`[data-testid=template-problem-item]`).Each(func(_ int, s *goquery.Selection) { listed = append(listed, s.AttrOr("data-field", "")) })
	if diff := cmp.Diff([]string{"name", "gpus", "max_runtime_h", "env_names", "workdir"}, listed); diff != "" {
		t.Errorf("template problems listed (-want +got):\n%s", diff)
	}
	if got := doc.Find(`[data-testid=template-create] [autofocus]`).AttrOr("name", ""); got != "name" {
		t.Errorf("the cursor is on %q, want the name", got)
	}

	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "nightly", "gpus": 1, "command": ["train"]}`, lead...)
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	page := fmt.Sprintf("/templates/%d", tpl.ID)
	sched := url.Values{"cron": {"61 * * * *"}, "time_zone": {"Mars/Base"}, "overlap": {"skip"}, "start_deadline_min": {"0"}}
	for _, path := range []string{page + "/schedules", page + "/schedules/preview"} {
		r := f.S.Form(path, sched, lead...)
		doc := webtest.DocOf(t, r)
		var fields []string
		doc.Find(`[data-testid=schedule-error]`).Each(func(_ int, s *goquery.Selection) { fields = append(fields, s.AttrOr("data-field", "")) })
		if diff := cmp.Diff([]string{"cron", "time_zone", "start_deadline_s"}, fields); r.StatusCode != http.StatusUnprocessableEntity || diff != "" {
			t.Errorf("POST %s = %d; fields named (-want +got):\n%s", path, r.StatusCode, diff)
		}
		if strings.HasSuffix(path, "/schedules") {
			if got := doc.Find(`[data-testid=schedule-form] [autofocus]`).AttrOr("name", ""); got != "cron" {
				t.Errorf("the cursor is on %q, want the expression", got)
			}
		}
	}
}
