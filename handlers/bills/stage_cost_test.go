package bills_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestStageCostsOnBillAndReport: a pipeline whose stage ran in week 2026-W07, inside
// February, shows the same stage figures on vision's February bill page and on that week's
// report.
func TestStageCostsOnBillAndReport(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	nt := webtest.Task("train").Of("vision").Ready().Nt
	nt.Spec = webtest.A100Spec
	pipe, err := w.Store.CreatePipeline(ctx, models.NewPipeline{Project: "vision", Name: "nightly", Owner: "member",
		Stages: []models.NewStage{{Name: "train", Task: nt}}}, models.DefaultTaskLimits, webtest.Feb(13, 0))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := w.Store.PipelineStages(ctx, pipe.ID, webtest.Feb(13, 0))
	if err != nil || len(rows) != 1 || rows[0].TaskID == nil {
		t.Fatalf("stages = %+v, %v", rows, err)
	}
	task, err := w.Store.TaskByID(ctx, *rows[0].TaskID)
	if err != nil {
		t.Fatal(err)
	}
	w.Place(task.Task, webtest.Feb(13, 1), webtest.UUIDOf("a100-01", 0))
	end := webtest.Feb(13, 3)
	if err := w.Store.ReportTaskStatus(ctx, w.Node.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
		t.Fatal(err)
	}
	figures := func(path string) [][]string {
		t.Helper()
		r := w.As("finance", path)
		if r.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, r.Code)
		}
		var out [][]string
		webtest.Parse(t, string(r.Body)).Find(`[data-testid=stage-pipeline] tr`).Each(func(_ int, tr *goquery.Selection) {
			var row []string
			tr.Find("th, td").Each(func(_ int, c *goquery.Selection) { row = append(row, strings.Join(strings.Fields(c.Text()), " ")) })
			out = append(out, row)
		})
		return out
	}
	bill := figures("/bills/vision/" + webtest.BillMonth)
	// The pipeline's row, then its stage: two card-hours of A100 at 15 yuan, all on A100.
	want := [][]string{{"nightly", "all on " + webtest.A100Spec, "2.00", "¥30.00", "¥30.00", "¥0.00"},
		{"train", webtest.A100Spec, "2.00", "¥30.00", "¥30.00", "¥0.00"}}
	if diff := cmp.Diff(want, bill); diff != "" {
		t.Errorf("bill page's stages (-want +got):\n%s", diff)
	}
	report := figures("/reports?week=" + webtest.ReportWeek)
	if len(report) > 0 && len(report[0]) > 0 {
		report[0][0] = strings.TrimSuffix(report[0][0], " vision") // the report names the project under the pipeline
	}
	if diff := cmp.Diff(bill, report); diff != "" {
		t.Errorf("the weekly report's stages differ from the bill's (-bill +report):\n%s", diff)
	}
	var b struct {
		Pipelines []struct {
			Pipeline  string `json:"pipeline"`
			AmountFen int64  `json:"amount_fen"`
		} `json:"pipelines"`
	}
	if err := json.Unmarshal(w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth).Body, &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Pipelines) != 1 || b.Pipelines[0].Pipeline != "nightly" || b.Pipelines[0].AmountFen != 3000 {
		t.Errorf("bill JSON pipelines = %+v, want nightly's 3000 fen", b.Pipelines)
	}
}
