package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/schedule"
	"kashi/web/webtest"
)

// TestBrowserPipelineTemplate opens a pipeline template's page (its stages, Submit pipeline,
// its nightly schedule with a submitted and a skipped run) and the templates list in both
// languages at 1600 px and on a 390 px phone: nothing scrolls sideways.
func TestBrowserPipelineTemplate(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("gpu-07").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	ctx := context.Background()
	p, err := s.Store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	w := s.Post(fmt.Sprintf("/api/v1/projects/%d/templates", p.ID), `{"name": "nightly-vit-evaluation", "description": "clean, pretrain and evaluate every night", "stages": [
		{"name": "clean", "output": "s3://lake/vision/a-rather-long-path/clean-shards", "task": {"gpus": 1, "command": ["python", "clean.py", "--shards", "s3://lake/vision/raw"]}},
		{"name": "pretrain", "after": ["clean"], "task": {"gpus": 2, "spec": "A100-80G", "command": ["torchrun", "--nproc-per-node", "2", "train.py"]}},
		{"name": "evaluate", "after": ["pretrain"], "task": {"gpus": 1, "command": ["python", "eval.py"]}},
		{"name": "report", "after_ended": ["evaluate"], "task": {"gpus": 1, "queue": "short", "max_runtime_s": 600, "command": ["report"]}}]}`)
	if w.Code != 201 {
		t.Fatalf("create = %d %s", w.Code, w.Body)
	}
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	if w := s.Post(fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), `{"cron": "0 22 * * *", "time_zone": "Asia/Shanghai"}`); w.Code != 201 {
		t.Fatalf("schedule = %d %s", w.Code, w.Body)
	}
	night := time.Date(webtest.T0.Year(), webtest.T0.Month(), webtest.T0.Day(), 14, 0, 0, 0, time.UTC)
	if !night.After(webtest.T0) {
		night = night.Add(24 * time.Hour)
	}
	r := schedule.NewRunner(s.Store, schedule.Config{Limits: models.DefaultTaskLimits})
	for _, at := range []time.Time{night, night.Add(24 * time.Hour)} {
		if err := r.RunOnce(ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "pipeline-template", []shotPage{
		{"page", fmt.Sprintf("/templates/%d", tpl.ID), `[data-testid=template-stages]`},
		{"runs", fmt.Sprintf("/templates/%d", tpl.ID), `[data-testid=run-pipeline]`},
		{"list", fmt.Sprintf("/projects/%d/templates", p.ID), `[data-testid=template-kind]`},
	})
}
