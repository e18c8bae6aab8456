package billing

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"

	"kashi/models"
)

// rerunFixture is a task that ran 10 h on GPU 1, its node lost after its checkpoint at 6 h
// (its allocation's seconds from then on lost to the rerun), then 9 h on GPU 2 to its end;
// both attempts busy throughout, at 10 yuan a card-hour.
func rerunFixture(t *testing.T) *fixture {
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").price(0, a100, 1000, 2000).
		task(1, 1, "pretrain", models.TaskSucceeded, 0, 20).
		hold(1, 1, 1, a100, 0, 10, false).hold(1, 1, 2, a100, 11, 20, false).
		busy(1, 0, 10, 30, 30, 0).busy(2, 11, 20, 30, 30, 0)
	f.allocs[0].RerunFrom = f.at(6).Unix()
	return f
}

// TestRerunClass: the seconds of an attempt that was rerun, from its checkpoint to its end,
// are the rerun class whatever the cards did, so held = effective + each waste class still
// holds; they are wasted although the task finished, and the bill says what they cost.
func TestRerunClass(t *testing.T) {
	f := rerunFixture(t)
	b := billOf(t, f.compute(t), "alpha")
	if len(b.Lines) != 1 {
		t.Fatalf("lines = %+v, want one", b.Lines)
	}
	l := b.Lines[0]
	const h = 3600
	if l.Rerun != 4*h || l.Active != 15*h || l.NominalS != 19*h || l.EffectiveS != 15*h || l.WastedS != 4*h {
		t.Errorf("line = %+v; want 4 h rerun, 15 h active of 19 h held, 4 h wasted", l)
	}
	if b.Held.Rerun != 4*h || b.RerunFen != 4000 || b.TotalFen != 19000 {
		t.Errorf("bill: rerun %d s costing %d fen of %d; want 4 h costing 40 yuan of 190", b.Held.Rerun, b.RerunFen, b.TotalFen)
	}
	checkSurfaces(t, "rerun", []Bill{b})

	rows := readCSV(t, []Bill{b})
	i := slices.IndexFunc(rows, func(r []string) bool { return r[colKind] == csvRerun })
	if i < 0 || rows[i][colRerun] != "4.000000" || rows[i][colAmount] != "40.00" || rows[i][colNote] != RerunNote {
		t.Errorf("CSV rerun row = %v; want 4 rerun hours costing 40.00", rows[max(i, 0)])
	}
	summary := readSheet(t, []Bill{b}, SheetSummary)
	if !slices.ContainsFunc(summary, func(r []string) bool {
		return len(r) > 8 && r[2] == csvRerun && r[4] == "4.000" && r[8] == "¥40.00"
	}) {
		t.Errorf("XLSX Summary = %v; want a rerun row of 4 h costing ¥40.00", summary)
	}
	if b.Issued == nil {
		frozen, err := Freeze(b, "fin")
		if err != nil {
			t.Fatal(err)
		}
		back, err := Frozen(frozen)
		if err != nil || back.RerunFen != 4000 || back.Lines[0].Rerun != 4*h {
			t.Errorf("issued bill read back: %d fen, %d s rerun, %v; want them kept", back.RerunFen, back.Lines[0].Rerun, err)
		}
	}
}

// TestRerunReport: the week's report files the rerun class per project, node and spec, and
// lists per project the card time lost to reruns; its downloads carry both.
func TestRerunReport(t *testing.T) {
	f := rerunFixture(t)
	from, to := f.in.Month.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Projects) != 1 || r.Projects[0].Rerun != 4*3600 || r.Total.Rerun != 4*3600 {
		t.Errorf("report projects = %+v, total %+v; want 4 h rerun", r.Projects, r.Total)
	}
	if len(r.Reruns) != 1 || r.Reruns[0].Project != "alpha" || r.Reruns[0].Runs != 1 || r.Reruns[0].NominalS != 4*3600 ||
		r.Reruns[0].SpecS[a100] != 4*3600 {
		t.Errorf("report reruns = %+v; want alpha's one task, 4 h of A100", r.Reruns)
	}
	var buf bytes.Buffer
	if err := WriteReportCSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(buf.Bytes(), []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := slices.Index(ReportCSVHeader, "重跑 Rerun hours")
	if last < 0 {
		t.Fatalf("no Rerun column in %q", ReportCSVHeader)
	}
	var project, rerun []string
	for _, row := range rows {
		switch row[0] {
		case reportProject:
			project = row
		case reportRerun:
			rerun = row
		}
	}
	if project == nil || project[last] != "4.000000" || rerun == nil || rerun[1] != "alpha" || rerun[6] != "4.000000" || rerun[last] != "4.000000" {
		t.Errorf("report CSV project row %v, rerun row %v; want 4 rerun hours in both", project, rerun)
	}
}
