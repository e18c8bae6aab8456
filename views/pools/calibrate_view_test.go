package pools

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/phrase"
	"kashi/views/viewstest"
)

// TestCalibrateChartAxes: the cost-versus-wait chart has both axes' values from zero (the
// wait in durations, the cost in yuan, or idle card-hours without a price), each point
// numbered as its row in the table, and titled with its setting and figures, in both
// languages.
func TestCalibrateChartAxes(t *testing.T) {
	rows := []CalibrateRow{
		{Setting: "idle_time=10m", CostFen: 1_200_000, IdleH: 3.5, MeanWaitS: 600},
		{Setting: "idle_time=30m", CostFen: 800_000, IdleH: 9, MeanWaitS: 1800},
	}
	tests := map[string]struct {
		l                phrase.Locale
		noPrice          bool
		x, y             []string
		title, tableHead string
	}{
		"en": {l: phrase.Locale{Lang: phrase.LangEN}, x: []string{"0s", "15m", "30m"}, y: []string{"¥0", "¥6,000", "¥12k"},
			title: "2. idle_time=30m: ¥8,000.00, mean wait 30m"},
		"zh": {l: phrase.Locale{Lang: phrase.LangZH}, x: []string{"0秒", "15分钟", "30分钟"}, y: []string{"¥0", "¥6,000", "¥12k"},
			title: "2. idle_time=30m：¥8,000.00，平均等待 30分钟"},
		"zh without prices": {l: phrase.Locale{Lang: phrase.LangZH}, noPrice: true, x: []string{"0秒", "15分钟", "30分钟"},
			y: []string{"0.0 卡时", "4.5 卡时", "9.0 卡时"}, title: "2. idle_time=30m：9.0 卡时，平均等待 30分钟"},
	}
	for name, tc := range tests {
		doc := viewstest.Parse(t, viewstest.Render(t, calibrateChart(tc.l, CalibrateRun{Finished: true, Rows: rows, PricedNote: tc.noPrice})))
		texts := func(sel string) string {
			var out []string
			doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
			return strings.Join(out, "|")
		}
		if got, want := texts(`[data-testid=calibrate-x]`), strings.Join(tc.x, "|"); got != want {
			t.Errorf("%s: wait axis = %q, want %q", name, got, want)
		}
		if got, want := texts(`[data-testid=calibrate-y]`), strings.Join(tc.y, "|"); got != want {
			t.Errorf("%s: cost axis = %q, want %q", name, got, want)
		}
		if got := texts(`[data-testid=calibrate-point]`); got != "1|2" {
			t.Errorf("%s: points' labels = %q, want 1|2", name, got)
		}
		if got := doc.Find(`circle.point title`).Last().Text(); got != tc.title {
			t.Errorf("%s: last point's title = %q, want %q", name, got, tc.title)
		}
	}
	// Points at one place share one label.
	same := append(rows, CalibrateRow{Setting: "idle_time=20m", CostFen: 1_200_000, IdleH: 3.5, MeanWaitS: 600})
	doc := viewstest.Parse(t, viewstest.Render(t, calibrateChart(phrase.Locale{Lang: phrase.LangEN}, CalibrateRun{Finished: true, Rows: same})))
	var labels []string
	doc.Find(`[data-testid=calibrate-point]`).Each(func(_ int, s *goquery.Selection) { labels = append(labels, s.Text()) })
	if strings.Join(labels, "|") != "1, 3|2" || doc.Find(`circle.point`).Length() != 3 {
		t.Errorf("labels of points 1 and 3 at one place = %q (%d points), want 1, 3|2", labels, doc.Find(`circle.point`).Length())
	}
}
