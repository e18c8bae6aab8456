package tasks_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/models"
	"kashi/web/webtest"
)

// TestPipelineForm: a member submits a pipeline file on /pipelines, in YAML as `kashi submit
// --pipeline` takes it, and lands on its page with a notice, its first stage queued; a text
// that is no pipeline, a bad stage and a stage of a project the member does not run are
// refused with the text kept and the problem named (422, 403), storing nothing; a viewer
// sees no form, in either language.
func TestPipelineForm(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	ctx := context.Background()
	file := `name: nightly
project: vision
stages:
  - name: clean
    gpus: 1
    command: [python, clean.py]
  - name: train
    after: [clean]
    gpus: 2
    command: [python, train.py]
`
	r := f.S.Form("/pipelines", url.Values{"pipeline": {file}}, webtest.Bearer(f.Member)...)
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/pipelines/") || !strings.HasSuffix(loc, "?notice=submitted") {
		t.Fatalf("submit = %d → %q, want 303 to the pipeline's page with a notice", r.StatusCode, loc)
	}
	for lang, want := range map[string]string{"en": "The pipeline is submitted", "zh-CN": "流水线已提交"} {
		doc := webtest.DocOf(t, f.S.Get(loc, append(webtest.Bearer(f.Member), "Accept-Language", lang)...).Result())
		if got := doc.Find(`[data-testid=notice]`).Text(); !strings.Contains(got, want) {
			t.Errorf("%s: notice %q, want %q", lang, got, want)
		}
	}
	pipes, err := f.S.Store.Pipelines(ctx, nil, 10)
	if err != nil || len(pipes) != 1 || pipes[0].Name != "nightly" || pipes[0].Owner != "mia" {
		t.Fatalf("pipelines = %+v, %v; want mia's nightly", pipes, err)
	}

	for name, c := range map[string]struct {
		text, want string
		status     int
	}{
		"not yaml":      {"name: [unclosed", "must be a pipeline in YAML or JSON", http.StatusUnprocessableEntity},
		"bad stage":     {strings.Replace(file, "gpus: 2", "gpus: -2", 1), "stages[1]", http.StatusUnprocessableEntity},
		"unknown key":   {file + "colour: red\n", "colour", http.StatusUnprocessableEntity},
		"other project": {strings.Replace(file, "project: vision", "project: nlp", 1), "nlp", http.StatusForbidden},
	} {
		r := f.S.Form("/pipelines", url.Values{"pipeline": {c.text}}, webtest.Bearer(f.Member)...)
		doc := webtest.DocOf(t, r)
		problem := doc.Find(`[data-testid=pipeline-error]`).Text()
		if r.StatusCode != c.status || !strings.Contains(problem, c.want) {
			t.Errorf("%s: %d %q, want %d naming %q", name, r.StatusCode, problem, c.status, c.want)
		}
		if got := doc.Find(`textarea[name=pipeline]`).Text(); got != c.text {
			t.Errorf("%s: the form kept %q, want the text sent", name, got)
		}
	}
	if pipes, _ := f.S.Store.Pipelines(ctx, nil, 10); len(pipes) != 1 {
		t.Errorf("%d pipelines after the refused forms, want 1", len(pipes))
	}

	viewer := f.S.UserToken("vic", models.RoleViewer)
	for _, lang := range []string{"en", "zh-CN"} {
		if doc := webtest.DocOf(t, f.S.Get("/pipelines", append(webtest.Bearer(viewer), "Accept-Language", lang)...).Result()); doc.Find(`[data-testid=pipeline-form]`).Length() != 0 {
			t.Errorf("%s: a viewer sees the pipeline form", lang)
		}
		if doc := webtest.DocOf(t, f.S.Get("/pipelines", append(webtest.Bearer(f.Member), "Accept-Language", lang)...).Result()); doc.Find(`[data-testid=pipeline-form]`).Length() != 1 {
			t.Errorf("%s: a member sees no pipeline form", lang)
		}
	}
}
