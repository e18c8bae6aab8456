package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserPipelines opens the pipelines page, a failed pipeline's page, a running one's
// (with its Cancel) and a cancelled one's in headless Chromium, in both languages at 1600 px and on a 390 px phone: the graph and its stages fit
// the width (no page scrolls sideways).
func TestBrowserPipelines(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("gpu-07").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	w := s.Post("/api/v1/pipelines", `{"project":"vision","name":"nightly-vit-with-a-long-name","stages":[
		{"name":"clean","gpus":1,"command":["clean"],"output":"s3://lake/vision/a-rather-long-path/clean-shards-2026-03","est_gpu_hours":1},
		{"name":"pretrain","after":["clean"],"gpus":2,"spec":"A100-80G","command":["train"],"est_gpu_hours":8},
		{"name":"evaluate","after":["pretrain"],"gpus":1,"command":["eval"],"est_gpu_hours":1},
		{"name":"report","after_ended":["evaluate"],"gpus":1,"command":["report"]}]}`)
	if w.Code != 201 {
		t.Fatalf("POST /api/v1/pipelines = %d %s", w.Code, w.Body)
	}
	p, _ := s.Store.Pipelines(context.Background(), nil, 1)
	rows, _ := s.Store.PipelineStages(context.Background(), p[0].ID, webtest.T0)
	if err := s.Store.CancelTask(context.Background(), *rows[0].TaskID, "tester", webtest.T0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.AdvancePipelines(context.Background(), models.DefaultTaskLimits, webtest.T0); err != nil {
		t.Fatal(err)
	}
	// One running (its page offers Cancel) and one cancelled with a stage skipped for it.
	var ids [2]int64
	for i, name := range []string{"weekly-running", "weekly-cancelled"} {
		w := s.Post("/api/v1/pipelines", fmt.Sprintf(`{"project":"vision","name":%q,"stages":[
			{"name":"clean","gpus":1,"command":["clean"]},{"name":"train","after":["clean"],"gpus":1,"command":["train"]}]}`, name))
		if w.Code != 201 {
			t.Fatalf("POST /api/v1/pipelines = %d %s", w.Code, w.Body)
		}
		q := webtest.Decode[api.Pipeline](t, w)
		ids[i] = q.ID
	}
	if _, err := s.Store.CancelPipeline(context.Background(), ids[1], "tester", webtest.T0); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "pipelines", []shotPage{
		{"list", "/pipelines", `[data-testid=pipeline-row]`},
		{"new", "/pipelines?new", `[data-testid=pipeline-form]`},
		{"graph", fmt.Sprintf("/pipelines/%d", p[0].ID), `[data-testid=pipeline-graph]`},
		{"running", fmt.Sprintf("/pipelines/%d", ids[0]), `[data-testid=pipeline-cancel]`},
		{"cancelled", fmt.Sprintf("/pipelines/%d?notice=cancelled", ids[1]), `[data-testid=pipeline-graph]`},
	})
}
