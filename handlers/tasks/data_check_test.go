package tasks_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

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
