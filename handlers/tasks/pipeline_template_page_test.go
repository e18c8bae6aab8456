package tasks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/schedule"
	"kashi/web/webtest"
)

// TestPipelineTemplatePage: a lead saves a pipeline template through the API and schedules
// it nightly; its page shows the stages in both languages with Submit pipeline for a member
// (no task form to edit), the list names it a pipeline; the member's submit opens the new
// pipeline's page; another project's member can neither see nor submit it; the night's run
// links its pipeline.
func TestPipelineTemplatePage(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	ctx := context.Background()
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "nightly-vit", "stages": [
		{"name": "clean", "task": {"gpus": 1, "command": ["python", "clean.py"]}},
		{"name": "train", "after": ["clean"], "task": {"gpus": 2, "command": ["python", "train.py"]}},
		{"name": "report", "after_ended": ["train"], "task": {"gpus": 1, "queue": "short", "max_runtime_s": 600, "command": ["report"]}}]}`,
		webtest.Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create = %d %s", w.Code, w.Body)
	}
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	page := fmt.Sprintf("/templates/%d", tpl.ID)
	if w := f.S.Post(fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), `{"cron": "0 22 * * *", "time_zone": "Asia/Shanghai"}`,
		webtest.Bearer(f.Lead)...); w.Code != http.StatusCreated {
		t.Fatalf("schedule = %d %s", w.Code, w.Body)
	}
	for lang, want := range map[string]string{"en": "Submit pipeline", "zh-CN": "提交流水线"} {
		doc := webtest.DocOf(t, f.S.Get(page, append(webtest.Bearer(f.Member), "Accept-Language", lang)...).Result())
		if n := doc.Find(`[data-testid=template-stage]`).Length(); n != 3 {
			t.Errorf("%s: %d stages shown, want 3", lang, n)
		}
		if got := strings.TrimSpace(doc.Find(`[data-testid=submit-pipeline]`).Text()); got != want {
			t.Errorf("%s: submit button %q, want %q", lang, got, want)
		}
		if doc.Find(`[data-testid=template-edit]`).Length() != 0 || doc.Find(`[data-testid=template-fields]`).Length() != 0 {
			t.Errorf("%s: a pipeline template's page shows a task's fields or form", lang)
		}
		if after := doc.Find(`[data-testid=template-stage][data-name=report] td`).First().Text(); !strings.Contains(after, "train") {
			t.Errorf("%s: report's parents read %q", lang, after)
		}
	}
	list := webtest.DocOf(t, f.S.Get(fmt.Sprintf("/projects/%d/templates", f.Vision), webtest.Bearer(f.Member)...).Result())
	if list.Find(`[data-testid=template-row][data-name=nightly-vit] [data-testid=template-kind][data-stages="3"]`).Length() != 1 {
		t.Error("the list does not name nightly-vit a pipeline of 3 stages")
	}
	if w := f.S.Get(page, webtest.Bearer(f.NLPMem)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's member opens it = %d, want 404", w.Code)
	}
	if r := f.S.Form(page+"/pipeline", url.Values{}, webtest.Bearer(f.NLPMem)...); r.StatusCode != http.StatusNotFound {
		t.Errorf("another project's member submits it = %d, want 404", r.StatusCode)
	}
	r := f.S.Form(page+"/pipeline", url.Values{}, webtest.Bearer(f.Member)...)
	if m := regexp.MustCompile(`^/pipelines/\d+$`).FindString(r.Header.Get("Location")); r.StatusCode != http.StatusSeeOther || m == "" {
		t.Fatalf("the member's submit = %d → %q, want 303 to the pipeline", r.StatusCode, r.Header.Get("Location"))
	}
	rows, err := f.S.Store.Pipelines(ctx, nil, 10)
	if err != nil || len(rows) != 1 || rows[0].Owner != "mia" || rows[0].Name != "nightly-vit" {
		t.Fatalf("pipelines = %+v, %v; want mia's nightly-vit", rows, err)
	}
	// 22:00 in Shanghai is 14:00 UTC; the run is due while mia's pipeline still runs: skipped.
	night := time.Date(webtest.T0.Year(), webtest.T0.Month(), webtest.T0.Day(), 14, 0, 0, 0, time.UTC)
	if !night.After(webtest.T0) {
		night = night.Add(24 * time.Hour)
	}
	if err := schedule.NewRunner(f.S.Store, schedule.Config{Limits: models.DefaultTaskLimits}).RunOnce(ctx, night); err != nil {
		t.Fatal(err)
	}
	if _, err := f.S.Store.CancelPipeline(ctx, rows[0].ID, "mia", night.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := schedule.NewRunner(f.S.Store, schedule.Config{Limits: models.DefaultTaskLimits}).RunOnce(ctx, night.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	doc := webtest.DocOf(t, f.S.Get(page, append(webtest.Bearer(f.Lead), "Accept-Language", "en")...).Result())
	if doc.Find(`[data-testid=schedule-run][data-outcome=skipped]`).Length() != 1 || doc.Find(`[data-testid=run-pipeline]`).Length() != 1 {
		t.Errorf("runs shown: %q; want one skipped, one linking its pipeline", doc.Find(`[data-testid=schedule]`).Text())
	}
}
