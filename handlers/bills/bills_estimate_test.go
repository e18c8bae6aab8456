package bills_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// TestEstimateAgainstActual: each task's bill line shows its estimate beside its card
// time, and the weekly report lists each project's largest misses, the gap signed.
func TestEstimateAgainstActual(t *testing.T) {
	w := webtest.NewBillWorld(t)
	under := w.Run(t, webtest.Task("under").Of("nlp").Est(1).Ready(), webtest.Feb(13, 0), 3*time.Hour, 0, nil, 3)
	over := w.Run(t, webtest.Task("over").Of("nlp").Est(10).Ready(), webtest.Feb(13, 4), time.Hour, 0, nil, 3)
	close := w.Run(t, webtest.Task("close").Of("nlp").Est(2).Ready(), webtest.Feb(13, 6), 2*time.Hour, 0, nil, 3)

	b := billOf(t, w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth))
	for id, want := range map[int64][2]int64{under.ID: {3600, 3 * 3600}, over.ID: {10 * 3600, 3600}, close.ID: {2 * 3600, 2 * 3600}} {
		if l := lineOf(t, b, id); l.EstimatedS != want[0] || l.NominalS != want[1] {
			t.Errorf("line of task %d: estimated %d s, actual %d s; want %v", id, l.EstimatedS, l.NominalS, want)
		}
	}

	doc := webtest.Parse(t, string(w.As("finance", "/reports?week="+webtest.ReportWeek).Body))
	var got [][2]string
	doc.Find(`[data-testid=estimate-misses] tr[data-testid=miss-row]`).Each(func(_ int, s *goquery.Selection) {
		got = append(got, [2]string{s.Find(".tname").Text(), s.Find(`[data-testid=miss]`).Text()})
	})
	want := [][2]string{{"over", "-9.00 (-90%)"}, {"under", "+2.00 (+200%)"}, {"close", "+0.00 (+0%)"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report's estimate misses (-want +got):\n%s", diff)
	}
	doc = webtest.Parse(t, string(w.As("finance", "/bills/nlp/"+webtest.BillMonth).Body))
	if e := doc.Find(`tr[data-testid=bill-line][data-task="` + strconv.FormatInt(under.ID, 10) + `"] [data-testid=line-estimated]`).Text(); e != "1.00" {
		t.Errorf("bill page: estimate of under = %q, want 1.00", e)
	}
}
