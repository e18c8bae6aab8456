package billing

import (
	"maps"
	"slices"
	"strconv"
	"testing"
)

// TestExportsCarryRegion: each bill line's region is in the CSV's and the Lines sheet's
// Region column, beside its spec; a line whose cards were in no region has it empty.
func TestExportsCarryRegion(t *testing.T) {
	b := goldenBill(t)
	want := map[string]string{}
	for _, l := range b.Lines {
		want[strconv.FormatInt(l.TaskID, 10)] = l.Region
	}
	if !slices.Contains(slices.Collect(maps.Values(want)), "华北-2") || !slices.Contains(slices.Collect(maps.Values(want)), "") {
		t.Fatalf("fixture regions %v: want lines in a region and in none", want)
	}

	rows := readCSV(t, []Bill{b})
	if rows[0][colRegion] != "地域 Region" || rows[0][colSpec] != "卡型 Spec" {
		t.Fatalf("CSV header %q: want Region beside Spec", rows[0])
	}
	seen := 0
	for _, row := range rows[1:] {
		if row[colKind] != csvLine {
			continue
		}
		seen++
		if got := row[colRegion]; got != want[row[colTaskID]] {
			t.Errorf("CSV line of task %s: region %q, want %q", row[colTaskID], got, want[row[colTaskID]])
		}
	}
	if seen != len(b.Lines) {
		t.Errorf("CSV has %d lines, want %d", seen, len(b.Lines))
	}

	sheet := readSheet(t, []Bill{b}, SheetLines)
	region := slices.Index(sheet[0], "地域 Region")
	if region < 0 || sheet[0][region-1] != "卡型 Spec" {
		t.Fatalf("Lines header %q: want Region beside Spec", sheet[0])
	}
	for _, row := range sheet[1:] {
		got := ""
		if region < len(row) {
			got = row[region]
		}
		if got != want[row[2]] {
			t.Errorf("Lines row of task %s: region %q, want %q", row[2], got, want[row[2]])
		}
	}
	if len(sheet)-1 != len(b.Lines) {
		t.Errorf("Lines sheet has %d rows, want %d", len(sheet)-1, len(b.Lines))
	}
}
