package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestPipelineCostIsTheBills: under a reserved package of A100s, a pipeline stage's two
// card-hours cost what vision's February bill says (nothing: the package's fee pays for
// them), not two hours at the A100 rate; its page and GET /api/v1/pipelines/{id} show the
// bill's card-hours and cost, stage by stage and in total.
func TestPipelineCostIsTheBills(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, err := w.Store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Store.SetBillingPlan(ctx, models.BillingPlan{ProjectID: vision.ID, FromMonth: webtest.BillMonth, Mode: models.BillReserved,
		PackageSpec: webtest.A100Spec, PackageCards: 1, PackageFeeFen: 100000}, webtest.Feb(1, 0)); err != nil {
		t.Fatal(err)
	}
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

	var bill struct {
		Pipelines []struct {
			PipelineID int64 `json:"pipeline_id"`
			AmountFen  int64 `json:"amount_fen"`
			NominalS   int64 `json:"nominal_s"`
			Stages     []struct {
				Stage     string `json:"stage"`
				NominalS  int64  `json:"nominal_s"`
				AmountFen int64  `json:"amount_fen"`
			} `json:"stages"`
		} `json:"pipelines"`
	}
	if err := json.Unmarshal(w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth).Body, &bill); err != nil {
		t.Fatal(err)
	}
	if len(bill.Pipelines) != 1 || len(bill.Pipelines[0].Stages) != 1 || bill.Pipelines[0].NominalS != 2*3600 {
		t.Fatalf("bill's pipelines = %+v, want nightly's one stage of two card-hours", bill.Pipelines)
	}
	billed := bill.Pipelines[0]
	if billed.AmountFen == 2*1500 {
		t.Fatalf("the bill prices the stage at the A100 rate (%d fen): the package does not apply, the test proves nothing", billed.AmountFen)
	}

	r := w.As("member", fmt.Sprintf("/api/v1/pipelines/%d", pipe.ID))
	if r.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/pipelines/%d = %d %s", pipe.ID, r.Code, r.Body)
	}
	var p api.Pipeline
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	st := p.Stages[0]
	if st.CostFen != billed.Stages[0].AmountFen || st.CardHours != float64(billed.Stages[0].NominalS)/3600 ||
		p.CostFen != billed.AmountFen || p.CardHours != float64(billed.NominalS)/3600 {
		t.Errorf("API: stage %v card-hours %d fen, pipeline %v card-hours %d fen; the bill's: %d s %d fen",
			st.CardHours, st.CostFen, p.CardHours, p.CostFen, billed.NominalS, billed.AmountFen)
	}

	page := w.As("member", fmt.Sprintf("/pipelines/%d", pipe.ID))
	if page.Code != http.StatusOK {
		t.Fatalf("GET /pipelines/%d = %d", pipe.ID, page.Code)
	}
	doc := webtest.Parse(t, string(page.Body))
	want := fmt.Sprint(billed.AmountFen)
	if got := doc.Find(`[data-testid="stage-use"]`).AttrOr("data-cost-fen", ""); got != want {
		t.Errorf("page: the stage costs %s fen, the bill %s", got, want)
	}
	if got := doc.Find(`[data-testid="pipeline-actual"]`).AttrOr("data-cost-fen", ""); got != want {
		t.Errorf("page: the pipeline cost %s fen, the bill %s", got, want)
	}
}
