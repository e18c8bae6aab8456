package bills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/phrase"
	"kashi/views"
)

func TestNiceStepAndTicks(t *testing.T) {
	tests := map[int64]struct {
		step  int64
		ticks string
	}{
		0:             {100, "¥0 ¥1"},
		14250:         {5000, "¥0 ¥50 ¥100 ¥150"},
		33000:         {10000, "¥0 ¥100 ¥200 ¥300 ¥400"},
		123456789:     {50000000, "¥0 ¥500k ¥1,000k ¥1,500k"},
		7_000_000_000: {2_000_000_000, "¥0 ¥20M ¥40M ¥60M ¥80M"},
	}
	for top, tc := range tests {
		got := views.NiceStep(top)
		if got != tc.step {
			t.Errorf("niceStep(%d) = %d, want %d", top, got, tc.step)
		}
		c := layoutCost(phrase.Locale{}, CostTrend{Months: []string{"2026-03"}, IdleFen: []int64{top}, TotalFen: []int64{top}})
		var ticks []string
		for _, tk := range c.YTicks {
			ticks = append(ticks, tk.Label)
		}
		if s := strings.Join(ticks, " "); s != tc.ticks {
			t.Errorf("ticks for %d fen = %q, want %q", top, s, tc.ticks)
		}
	}
}

// TestLayoutCost: segments stack bottom up in series order, idle last, each as tall as its
// share; a credit (negative cost) draws nothing; years show under January and the first
// month, not side by side.
func TestLayoutCost(t *testing.T) {
	tr := CostTrend{Months: []string{"2025-12", "2026-01", "2026-02"},
		Series:   []CostSeries{{Project: "vision", Fen: []int64{20000, 0, -500}}, {Other: true, Fen: []int64{10000, 0, 0}}},
		IdleFen:  []int64{10000, 0, 40000},
		TotalFen: []int64{40000, 0, 39500}}
	c := layoutCost(phrase.Locale{}, tr)
	type seg struct{ Class, Y, H, Title string }
	var got [][]seg
	var years []string
	for _, col := range c.Columns {
		var ss []seg
		for _, s := range col.Segments {
			ss = append(ss, seg{s.Class, s.Y, s.H, s.Title})
		}
		got = append(got, ss)
		years = append(years, col.Year)
	}
	// 400 yuan is the top tick: 222 units for ¥400.
	want := [][]seg{
		{{"s0", "125", "111", "vision: ¥200.00"}, {"s-other", "69.5", "55.5", "Other projects: ¥100.00"},
			{"s-idle", "14", "55.5", "Idle cards: ¥100.00"}},
		nil,
		{{"s-idle", "14", "222", "Idle cards: ¥400.00"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("segments (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"", "2026", ""}, years); d != "" {
		t.Errorf("years (-want +got):\n%s", d)
	}
	if c.Columns[2].Title != "2026-02: ¥395.00 in all" {
		t.Errorf("title = %q", c.Columns[2].Title)
	}
}
