package billing

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"kashi/models"
)

// stageFixture is March 2026 (Asia/Shanghai) with project vision's pipeline 7 "nightly" of
// three stages inside ISO week 2026-W10 (2 to 9 March): clean on RTX, train on two A100
// cards (part of it beyond the quota), eval on RTX then, rerun, on A100; and a task of no
// pipeline. Hours are from 1 March 00:00.
func stageFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "vision").
		price(0, "A100-80G", 2000, 3000).price(0, "RTX4090-24G", 500, 800).
		task(1, 1, "nightly/clean", models.TaskSucceeded, 0, 31).
		task(2, 1, "nightly/train", models.TaskSucceeded, 0, 41).
		task(3, 1, "nightly/eval", models.TaskFailed, 0, 43).
		task(4, 1, "nightly/eval", models.TaskSucceeded, 0, 50).
		task(5, 1, "adhoc", models.TaskSucceeded, 0, 60).
		hold(1, 1, 9, "RTX4090-24G", 30, 31.5, false).busy(9, 30, 31.5, 10, 10, 0).
		hold(2, 1, 1, "A100-80G", 32, 41, false).hold(2, 1, 2, "A100-80G", 32, 41, true).busy(1, 32, 41, 10, 8, 1).
		hold(3, 1, 10, "RTX4090-24G", 42, 43.25, false).
		hold(4, 1, 3, "A100-80G", 45, 50, false).
		hold(5, 1, 4, "A100-80G", 55, 60, false)
	stages := map[int64]string{1: "clean", 2: "train", 3: "eval", 4: "eval"}
	for i := range f.tasks {
		if st, ok := stages[f.tasks[i].ID]; ok {
			f.tasks[i].PipelineID, f.tasks[i].Pipeline, f.tasks[i].Stage = 7, "nightly", st
		}
	}
	return f
}

// TestPipelineStagesAddUpTheLines checks that a bill's stages add up, card-second for
// card-second and fen for fen, to its pipeline tasks' lines, and price the same card time
// on the highest-priced spec used.
func TestPipelineStagesAddUpTheLines(t *testing.T) {
	b := billOf(t, stageFixture(t).compute(t), "vision")
	if len(b.Pipelines) != 1 {
		t.Fatalf("bill pipelines = %+v, want nightly's", b.Pipelines)
	}
	pc := b.Pipelines[0]
	var lineS, lineFen, stageS, stageFen int64
	for _, l := range b.Lines {
		if l.TaskID <= 4 {
			lineS += l.NominalS
			lineFen += l.AmountFen
		}
	}
	for _, st := range pc.Stages {
		stageS += st.NominalS
		stageFen += st.AmountFen
	}
	if stageS != lineS || pc.NominalS != lineS || stageFen != lineFen || pc.AmountFen != lineFen {
		t.Errorf("stages hold %d s, %d fen (pipeline %d s, %d fen); the pipeline's lines %d s, %d fen",
			stageS, stageFen, pc.NominalS, pc.AmountFen, lineS, lineFen)
	}
	type row struct {
		Stage, Spec         string
		S, Fen, Top, Saving int64
	}
	var got []row
	for _, st := range pc.Stages {
		got = append(got, row{st.Stage, st.Spec, st.NominalS, st.AmountFen, st.TopSpecFen, st.SavingFen})
	}
	h := int64(3600)
	want := []row{
		{"clean", "RTX4090-24G", 3 * h / 2, 750, 3000, 2250},
		// one card at the rate, one beyond the quota at the overflow rate: on A100 already
		{"train", "A100-80G", 18 * h, 9*2000 + 9*3000, 9*2000 + 9*3000, 0},
		{"eval", "A100-80G", 5 * h, 10000, 10000, 0},
		{"eval", "RTX4090-24G", 5 * h / 4, 625, 2500, 1875},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
	if pc.TopSpec != "A100-80G" || pc.TopRateFen != 2000 || pc.SavingFen != 2250+1875 || pc.TopSpecFen != pc.AmountFen+pc.SavingFen {
		t.Errorf("pipeline = top %s at %d, on it %d fen, saving %d fen; want A100-80G at 2000, saving 4125",
			pc.TopSpec, pc.TopRateFen, pc.TopSpecFen, pc.SavingFen)
	}
}

// TestWeekShowsTheBillsStages checks that the weekly report of a week inside one month shows
// the stage figures the month's bill shows, when the pipeline ran in that week.
func TestWeekShowsTheBillsStages(t *testing.T) {
	f := stageFixture(t)
	f.plan(models.BillingPlan{ProjectID: 1, Mode: models.BillReserved, PackageSpec: "RTX4090-24G", PackageCards: 1, PackageFeeFen: 1000})
	b := billOf(t, f.compute(t), "vision")
	w, err := ParseWeek("2026-W10")
	if err != nil {
		t.Fatal(err)
	}
	from, to := w.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects,
		Allocations: f.allocs, Tasks: f.tasks, Readings: f.rollups.readings(),
		Prices: f.in.Prices, Plans: f.in.Plans, Quotas: f.in.Quotas})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Pipelines) == 0 {
		t.Fatal("the bill shows no pipeline")
	}
	if diff := cmp.Diff(b.Pipelines, r.Pipelines); diff != "" {
		t.Errorf("weekly report's stages differ from the bill's (-bill +report):\n%s", diff)
	}
	// Inside the package the RTX stages cost nothing, and on A100 they would have.
	if st := b.Pipelines[0].Stages[0]; st.Stage != "clean" || st.AmountFen != 0 || st.TopSpecFen != 3000 {
		t.Errorf("clean under an RTX package = %+v, want 0 fen, 3000 on A100", st)
	}
}

// TestStagesInDownloads checks that the bill's CSV and workbook and the weekly report's CSV
// carry each stage's card time, cost, cost on the top spec and saving, on rows of their own
// kind, so that adding up the bill's line rows still gives its total.
func TestStagesInDownloads(t *testing.T) {
	f := stageFixture(t)
	b := billOf(t, f.compute(t), "vision")
	rows := readCSV(t, []Bill{b})
	var lines, stages int64
	var stageRows [][]string
	for _, r := range rows[1:] {
		switch r[colKind] {
		case csvLine:
			lines += fenOf(t, r[colAmount])
		case csvStage:
			stages += fenOf(t, r[colAmount])
			stageRows = append(stageRows, []string{r[colTaskID], r[colTask], r[colSpec], r[colNominal], r[colAmount], r[colNote]})
		}
	}
	if lines != b.TotalFen {
		t.Errorf("the CSV's line rows add up to %d fen, the bill's total is %d", lines, b.TotalFen)
	}
	wantRows := [][]string{
		{"7", "nightly/clean", "RTX4090-24G", "1.500000", "7.50", "pipeline stage; on A100-80G (20.00/card-hour) 30.00, saving 22.50; inside the total"},
		{"7", "nightly/train", "A100-80G", "18.000000", "450.00", "pipeline stage; on A100-80G (20.00/card-hour) 450.00, saving 0.00; inside the total"},
		{"7", "nightly/eval", "A100-80G", "5.000000", "100.00", "pipeline stage; on A100-80G (20.00/card-hour) 100.00, saving 0.00; inside the total"},
		{"7", "nightly/eval", "RTX4090-24G", "1.250000", "6.25", "pipeline stage; on A100-80G (20.00/card-hour) 25.00, saving 18.75; inside the total"},
	}
	if diff := cmp.Diff(wantRows, stageRows); diff != "" {
		t.Errorf("the CSV's stage rows (-want +got):\n%s", diff)
	}
	if stages != b.Pipelines[0].AmountFen {
		t.Errorf("stage rows add up to %d fen, the pipeline's amount is %d", stages, b.Pipelines[0].AmountFen)
	}

	sheet := readSheet(t, []Bill{b}, SheetStages)
	if len(sheet) != 5 || !cmp.Equal(sheet[1], []string{"vision", "2026-03", "7", "nightly", "clean", "RTX4090-24G",
		"1.500", "1.500", "¥7.50", "A100-80G", "¥30.00", "¥22.50"}) {
		t.Errorf("Stages sheet = %q, want the header and four stages, clean first", sheet)
	}
	b.Pipelines = nil
	if names := sheetNames(t, []Bill{b}); slices.Contains(names, SheetStages) {
		t.Errorf("a workbook without pipelines has sheets %q; want no Stages sheet, as before pipelines", names)
	}

	w, _ := ParseWeek("2026-W10")
	from, to := w.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects,
		Allocations: f.allocs, Tasks: f.tasks, Readings: f.rollups.readings(), Prices: f.in.Prices})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteReportCSV(&out, r); err != nil {
		t.Fatal(err)
	}
	report, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(out.Bytes(), []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := len(ReportCSVHeader)
	var got [][]string
	for _, row := range report[1:] {
		if row[0] == reportStage {
			got = append(got, []string{row[1], row[2], row[4], row[6], row[22], row[n-2], row[n-1]})
		}
	}
	want := [][]string{
		{"nightly/clean", "vision", "RTX4090-24G", "1.500000", "7.50", "30.00", "22.50"},
		{"nightly/train", "vision", "A100-80G", "18.000000", "450.00", "450.00", "0.00"},
		{"nightly/eval", "vision", "A100-80G", "5.000000", "100.00", "100.00", "0.00"},
		{"nightly/eval", "vision", "RTX4090-24G", "1.250000", "6.25", "25.00", "18.75"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the report CSV's stage rows (-want +got):\n%s", diff)
	}
}

// fenOf reads yuan with two decimals as fen.
func fenOf(t *testing.T, yuan string) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(yuan, ".")
	y, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || len(frac) != 2 {
		t.Fatalf("amount %q is not yuan with two decimals", yuan)
	}
	return y*100 + f
}

// sheetNames are the sheets of the bills' workbook.
func sheetNames(t *testing.T, bills []Bill) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, bills, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.GetSheetList()
}
