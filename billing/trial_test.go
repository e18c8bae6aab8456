package billing

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"

	"kashi/models"
)

// trialFixture is a trial's run of 2 h on GPU 1 (busy, stopped at its bound: timed out)
// beside an ordinary task of 3 h on GPU 2, at 10 yuan a card-hour.
func trialFixture(t *testing.T) *fixture {
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").price(0, a100, 1000, 2000).
		task(1, 1, "pretrain · trial 1 × A100-80G", models.TaskTimedOut, 0, 2).
		task(2, 1, "other", models.TaskSucceeded, 0, 3).
		hold(1, 1, 1, a100, 0, 2, false).hold(2, 1, 2, a100, 0, 3, false).
		busy(1, 0, 2, 30, 30, 0).busy(2, 0, 3, 30, 30, 0)
	f.allocs[0].Trial = true
	return f
}

// TestTrialClass: a trial's run is billed on its own line as the trial class whatever its
// cards did, none of it wasted although it stopped at its bound, so held = effective + each
// class still holds; the bill, its CSV and XLSX rows say what trials cost, kept when issued,
// and the week's report lists them per project.
func TestTrialClass(t *testing.T) {
	f := trialFixture(t)
	b := billOf(t, f.compute(t), "alpha")
	const h = 3600
	i := slices.IndexFunc(b.Lines, func(l Line) bool { return l.TaskID == 1 })
	if len(b.Lines) != 2 || i < 0 {
		t.Fatalf("lines = %+v; want the trial's own and the other's", b.Lines)
	}
	if l := b.Lines[i]; l.Trial != 2*h || l.Active != 0 || l.NominalS != 2*h || l.EffectiveS != 0 || l.WastedS != 0 {
		t.Errorf("trial line = %+v; want 2 h trial of 2 h held, none wasted", l)
	}
	if b.Held.Trial != 2*h || b.TrialFen != 2000 || b.TotalFen != 5000 || b.WastedS != 0 {
		t.Errorf("bill: trial %d s costing %d fen of %d, wasted %d; want 2 h costing 20 yuan of 50, none wasted",
			b.Held.Trial, b.TrialFen, b.TotalFen, b.WastedS)
	}
	checkSurfaces(t, "trial", []Bill{b})

	rows := readCSV(t, []Bill{b})
	j := slices.IndexFunc(rows, func(r []string) bool { return r[colKind] == csvTrial })
	if j < 0 || rows[j][colTrial] != "2.000000" || rows[j][colAmount] != "20.00" || rows[j][colNote] != TrialNote {
		t.Errorf("CSV trial row = %v; want 2 trial hours costing 20.00", rows[max(j, 0)])
	}
	summary := readSheet(t, []Bill{b}, SheetSummary)
	if !slices.ContainsFunc(summary, func(r []string) bool {
		return len(r) > 8 && r[2] == csvTrial && r[4] == "2.000" && r[8] == "¥20.00"
	}) {
		t.Errorf("XLSX Summary = %v; want a trial row of 2 h costing ¥20.00", summary)
	}
	frozen, err := Freeze(b, "fin")
	if err != nil {
		t.Fatal(err)
	}
	back, err := Frozen(frozen)
	if err != nil || back.TrialFen != 2000 || back.Held.Trial != 2*h {
		t.Errorf("issued bill read back: %d fen, %d s trial, %v; want them kept", back.TrialFen, back.Held.Trial, err)
	}

	from, to := f.in.Month.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trials) != 1 || r.Trials[0].Project != "alpha" || r.Trials[0].Runs != 1 || r.Trials[0].NominalS != 2*h ||
		r.Total.Trial != 2*h || r.Total.WastedS != 0 {
		t.Errorf("report trials = %+v, total %+v; want alpha's one run of 2 h", r.Trials, r.Total)
	}
	var buf bytes.Buffer
	if err := WriteReportCSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(buf.Bytes(), []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := slices.Index(ReportCSVHeader, "试跑 Trial hours")
	if last < 0 || !slices.ContainsFunc(recs, func(row []string) bool {
		return row[0] == reportTrial && row[1] == "alpha" && row[last] == "2.000000"
	}) {
		t.Errorf("report CSV = %v; want a trial row of alpha with 2 trial hours in the Trial column", recs)
	}
}
