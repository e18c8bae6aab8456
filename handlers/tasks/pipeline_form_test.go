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

// TestPipelineFormSavesATemplate: a lead saves the same pipeline file as a pipeline template
// of the project and lands on its page, whose stages carry the file's; a member is refused
// (403) and offered no such button; another project's lead is refused naming the project;
// saved, the template is submitted as a pipeline from its page.
func TestPipelineFormSavesATemplate(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	ctx := context.Background()
	file := `name: nightly-vit
project: vision
stages:
  - name: clean
    gpus: 1
    command: [python, clean.py]
    output: /data/vision/clean
  - name: train
    after: [clean]
    gpus: 2
    queue: long
    command: [python, train.py]
`
	save := url.Values{"pipeline": {file}, "as": {"template"}}
	if r := f.S.Form("/pipelines", save, webtest.Bearer(f.Member)...); r.StatusCode != http.StatusForbidden {
		t.Errorf("a member saving a template = %d, want 403", r.StatusCode)
	}
	if doc := webtest.DocOf(t, f.S.Get("/pipelines", webtest.Bearer(f.Member)...).Result()); doc.Find(`[data-testid=pipeline-save-template]`).Length() != 0 {
		t.Error("a member is offered to save a template")
	}
	nlpLead := f.S.MemberAs("nora", "nlp", "lead")
	r := f.S.Form("/pipelines", save, webtest.Bearer(nlpLead)...)
	if problem := webtest.DocOf(t, r).Find(`[data-testid=pipeline-error]`).Text(); r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(problem, "project you lead") {
		t.Errorf("another project's lead saving vision's template = %d %q, want 422 naming the project", r.StatusCode, problem)
	}
	if doc := webtest.DocOf(t, f.S.Get("/pipelines", webtest.Bearer(f.Lead)...).Result()); doc.Find(`[data-testid=pipeline-save-template]`).Length() != 1 {
		t.Error("a lead is not offered to save a template")
	}
	r = f.S.Form("/pipelines", save, webtest.Bearer(f.Lead)...)
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/templates/") {
		t.Fatalf("a lead saving the template = %d → %q, want 303 to its page", r.StatusCode, loc)
	}
	tpls, err := f.S.Store.Templates(ctx, f.Vision)
	if err != nil || len(tpls) != 1 {
		t.Fatalf("templates = %+v, %v; want one", tpls, err)
	}
	body := tpls[0].Fields()
	if len(body.Stages) != 2 || body.Stages[0].Output != "/data/vision/clean" || body.Stages[1].After[0] != "clean" ||
		body.Stages[1].Task.GPUs != 2 || body.Stages[1].Task.Command[0] != "python" {
		t.Errorf("saved stages = %+v, want the file's", body.Stages)
	}
	if r := f.S.Form(loc+"/pipeline", url.Values{}, webtest.Bearer(f.Member)...); r.StatusCode != http.StatusSeeOther {
		t.Errorf("submitting the saved template = %d, want 303", r.StatusCode)
	}
	bad := url.Values{"pipeline": {strings.Replace(file, "gpus: 2", "gpus: 0", 1)}, "as": {"template"}}
	r = f.S.Form("/pipelines", bad, webtest.Bearer(f.Lead)...)
	if problem := webtest.DocOf(t, r).Find(`[data-testid=pipeline-error]`).Text(); r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(problem, "stages[1]") {
		t.Errorf("a bad stage saved as a template = %d %q, want 422 naming stages[1]", r.StatusCode, problem)
	}
}
