package tasks

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"testing"
	"time"

	"kashi/phrase"
	"kashi/views/viewstest"
)

// TestCardChartAxes: a card's chart on the task page has its axes (0, 50 and 100 % up the
// left, the start and end of its holding time along the bottom), the peak of utilization
// marked with its value, each reading titled with its time and values, and the legend's
// figures, in both languages.
func TestCardChartAxes(t *testing.T) {
	loc := time.FixedZone("CST", 8*3600)
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, loc)
	c := TaskCardView{Node: "n1", Index: 3, StartedAt: t0, EndedAt: t0.Add(time.Hour), MemTotalMiB: 81920,
		Points: []ChartPoint{{At: t0, UtilPct: 0, MemMiB: 1024}, {At: t0.Add(30 * time.Minute), UtilPct: 92, MemMiB: 17 * 1024},
			{At: t0.Add(2 * time.Hour), UtilPct: 40, MemMiB: 16 * 1024}}}
	now := t0.Add(3 * time.Hour)
	tests := map[string]struct {
		l                      phrase.Locale
		y, x                   []string
		peak, util, mem, title string
	}{
		"en": {phrase.Locale{Lang: phrase.LangEN}, []string{"0%", "50%", "100%"}, []string{"09:00:00", "10:00:00"}, "92%",
			"Utilization: peak 92%, mean 44%", "Memory: peak 17 / 80 GiB", "09:30:00 · utilization 92% · memory 17 / 80 GiB"},
		"zh": {phrase.Locale{Lang: phrase.LangZH}, []string{"0%", "50%", "100%"}, []string{"09:00:00", "10:00:00"}, "92%",
			"利用率：峰值 92%，平均 44%", "显存：峰值 17 / 80 GiB", "09:30:00 · 利用率 92% · 显存 17 / 80 GiB"},
	}
	for name, tc := range tests {
		doc := viewstest.Parse(t, viewstest.Render(t, cardChart(tc.l, c, now)))
		texts := func(sel string) []string {
			var out []string
			doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
			return out
		}
		if got := texts(`[data-testid=card-y]`); strings.Join(got, "|") != strings.Join(tc.y, "|") {
			t.Errorf("%s: y axis = %q, want %q", name, got, tc.y)
		}
		if got := texts(`[data-testid=card-x]`); strings.Join(got, "|") != strings.Join(tc.x, "|") {
			t.Errorf("%s: time axis = %q, want %q", name, got, tc.x)
		}
		if got := doc.Find(`[data-testid=card-peak]`).Text(); got != tc.peak {
			t.Errorf("%s: peak label = %q, want %q", name, got, tc.peak)
		}
		if got := doc.Find(`[data-testid=card-util]`).Text(); got != tc.util {
			t.Errorf("%s: legend = %q, want %q", name, got, tc.util)
		}
		if got := doc.Find(`[data-testid=card-mem]`).Text(); got != tc.mem {
			t.Errorf("%s: legend = %q, want %q", name, got, tc.mem)
		}
		if got := texts(`circle title`); len(got) != 3 || got[1] != tc.title {
			t.Errorf("%s: readings' titles = %q, want 3 with %q second", name, got, tc.title)
		}
		// Lines in the plot: a reading past the end stays at its right edge.
		if got, want := doc.Find(`polyline.util`).AttrOr("points", ""), "40,96 176,16.9 312,61.6"; got != want {
			t.Errorf("%s: utilization line = %q, want %q", name, got, want)
		}
	}
	// A card still held ends "now".
	held := c
	held.EndedAt = time.Time{}
	doc := viewstest.Parse(t, viewstest.Render(t, cardChart(phrase.Locale{Lang: phrase.LangZH}, held, now)))
	if got := doc.Find(`[data-testid=card-x]`).Last().Text(); got != "现在" {
		t.Errorf("held card's time axis ends %q, want 现在", got)
	}
}
