package billing

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

func TestParseWeek(t *testing.T) {
	loc := mustLoc(t, "Asia/Shanghai")
	good := map[string]string{
		"2026-W01": "2025-12-29", // week 1 holds 4 January
		"2026-W10": "2026-03-02",
		"2020-W53": "2020-12-28", // 2020 has 53 weeks
		"2026-W53": "2026-12-28", // and so has 2026
	}
	for s, monday := range good {
		w, err := ParseWeek(s)
		if err != nil || w.String() != s {
			t.Errorf("ParseWeek(%q) = %v, %v", s, w, err)
			continue
		}
		from, to := w.Bounds(loc)
		if got := from.In(loc).Format("2006-01-02 15:04 Mon"); got != monday+" 00:00 Mon" {
			t.Errorf("%s begins %s, want %s 00:00 Mon", s, got, monday)
		}
		if to.Sub(from) != 7*24*time.Hour {
			t.Errorf("%s lasts %v", s, to.Sub(from))
		}
		if w.Next().Prev() != w {
			t.Errorf("%s: Next().Prev() = %v", s, w.Next().Prev())
		}
	}
	for _, s := range []string{"", "2026-10", "2026-W00", "2025-W53", "2026-W54", "2026-W5", "26-W10", "2026-w10", "2026-W+1", "2026W10x"} {
		if w, err := ParseWeek(s); err == nil {
			t.Errorf("ParseWeek(%q) = %v, want an error", s, w)
		}
	}
	now := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	if _, err := CheckWeek("2026-W11", loc, now); fieldOf(err) != "week" {
		t.Errorf("CheckWeek(future) = %v, want a FieldError on week", err)
	}
	if _, err := CheckWeek("2026-W10", loc, now); err != nil {
		t.Errorf("CheckWeek(current week) = %v", err)
	}
}

func fieldOf(err error) string {
	if fe, ok := err.(*models.FieldError); ok {
		return fe.Field
	}
	return ""
}

func TestModelTag(t *testing.T) {
	for name, want := range map[string]string{
		"llama-7b/sft-r3": "llama-7b", "qwen:eval": "qwen", "sft-run-12": "sft-run", "pretrain_3": "pretrain",
		"train": "train", "42": "42", "/x": "/x",
	} {
		if got := ModelTag(name); got != want {
			t.Errorf("ModelTag(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestUtilizationMatchesBills: over a month's window the report classifies every held
// second as the month's bills do, per project and in total.
func TestUtilizationMatchesBills(t *testing.T) {
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").project(2, "beta").
		price(0, a100, 1500, 2500).
		task(1, 1, "llama/sft", models.TaskSucceeded, 40, 11).hold(1, 1, 1, a100, -5, 11, false).hold(1, 1, 2, a100, 1, 11, false).
		busy(1, -5, 11, 30, 20, 5).busy(2, 1, 11, 30, 0, 30).
		task(2, 1, "llama/eval", models.TaskFailed, 3, 23).hold(2, 1, 3, a100, 20, 23, true).
		task(3, 2, "bert-2", models.TaskRunning, 0, -1).hold(3, 2, 9, a100, 700, -1, false).busy(9, 700, 800, 10, 0, 10)
	f.in.Nodes = []models.LedgerNode{
		{ID: 1, Hostname: "n1", Spec: a100, GPUIDs: []int64{1, 2, 3, 4}, RegisteredAt: f.at(-100), LastSeenAt: f.at(2000)},
		{ID: 2, Hostname: "n2", Spec: a100, GPUIDs: []int64{9}, RegisteredAt: f.at(600), LastSeenAt: f.at(2000)},
	}
	res := f.compute(t)
	from, to := f.in.Month.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), Nodes: f.in.Nodes})
	if err != nil {
		t.Fatal(err)
	}
	var total Breakdown
	for i, b := range res.Bills {
		if r.Projects[i].Key != b.Project || r.Projects[i].Breakdown != b.Held {
			t.Errorf("project %s: report %+v, bill %+v", b.Project, r.Projects[i], b.Held)
		}
		total.Add(b.Held)
	}
	if r.Total.Breakdown != total || r.Total.NominalS != total.Nominal() {
		t.Errorf("total = %+v, want %+v", r.Total, total)
	}
	var nodes, specs Breakdown
	for _, u := range r.Nodes {
		nodes.Add(u.Breakdown)
	}
	for _, u := range r.Specs {
		specs.Add(u.Breakdown)
	}
	if nodes != total || specs != total {
		t.Errorf("nodes %+v, specs %+v; want both %+v", nodes, specs, total)
	}
	var poolIdle int64
	for _, p := range res.PoolIdle {
		poolIdle += p.IdleS
	}
	if r.Total.UnheldS != poolIdle {
		t.Errorf("unheld = %d, want the month's pool idle %d", r.Total.UnheldS, poolIdle)
	}
	if len(r.TopIdle) != 2 || r.TopIdle[0].TaskID != 3 || r.TopIdle[1].TaskID != 1 {
		t.Errorf("top idle = %+v, want tasks 3 then 1", r.TopIdle)
	}
	// Task 1 is counted whole, from before the month began; task 2 failed (interrupted).
	// Task 1's first card is active 2/3 of 16 hours, its second never; task 2 is all interrupted.
	want := []OutputCost{{Key: "alpha", Tasks: 2, Units: 43, NominalS: (16 + 10 + 3) * 3600, EffectiveS: 16 * 3600 * 2 / 3}}
	if diff := cmp.Diff(want, r.OutputProjects); diff != "" {
		t.Errorf("output per project (-want +got):\n%s", diff)
	}
	if len(r.OutputTags) != 1 || r.OutputTags[0].Key != "llama" || r.OutputTags[0].Units != 43 {
		t.Errorf("output per tag = %+v", r.OutputTags)
	}

	only, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), Nodes: f.in.Nodes, Only: map[int64]bool{2: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Projects) != 1 || only.Projects[0].Key != "beta" || only.Total.UnheldS != 0 || len(only.OutputProjects) != 0 {
		t.Errorf("report of beta only = %+v", only)
	}

	var buf bytes.Buffer
	if err := WriteReportCSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("\uFEFF")) {
		t.Error("report CSV lacks the byte-order mark")
	}
	rows, err := csv.NewReader(bytes.NewReader(buf.Bytes()[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantRows := 1 + 1 + len(r.Projects) + len(r.Nodes) + len(r.Specs) + len(r.TopIdle) + len(r.OutputProjects) + len(r.OutputTags)
	if len(rows) != wantRows || rows[1][0] != reportTotal || rows[1][6] != FormatHours(total.Nominal()) {
		t.Errorf("report CSV has %d rows (want %d), total row %v", len(rows), wantRows, rows[1])
	}
}
