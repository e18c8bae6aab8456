package bills_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/web/webtest"
)

// A bill of more lines than a page shows them a page at a time, with a way to the others,
// while its total and summary stay the whole bill's, on an issued bill as on a preview; a
// page that is not a whole number from 1 is 400 naming it, and one past the last is the last.
func TestBillPagesLines(t *testing.T) {
	w := webtest.NewBillWorld(t)
	for i := range 205 {
		w.Run(t, webtest.Task("sweep-"+strconv.Itoa(i)).Of("vision").Ready(), webtest.Feb(15, float64(i)*0.2), 10*time.Minute, 0, nil, 3)
	}
	path := "/bills/vision/" + webtest.BillMonth
	page := func(q string) (lines int, first, total, rng, next string) {
		t.Helper()
		r := w.As("finance", path+q)
		if r.Code != http.StatusOK {
			t.Fatalf("GET %s%s = %d %s", path, q, r.Code, r.Body)
		}
		doc := webtest.Parse(t, string(r.Body))
		rows := doc.Find(`[data-testid=bill-line]`)
		return rows.Length(), rows.First().AttrOr("data-task", ""), doc.Find(`[data-testid=bill-total]`).Text(),
			strings.TrimSpace(doc.Find(`[data-testid=pager-page] [data-testid=page-range]`).First().Text()),
			doc.Find(`[data-testid=pager-page] [data-testid=page-next]`).First().AttrOr("href", "")
	}
	for _, issued := range []bool{false, true} {
		n1, first1, total1, rng1, next1 := page("")
		n3, first3, total3, rng3, next3 := page("?page=3")
		nLast, firstLast, _, _, _ := page("?page=99")
		if n1 != 100 || rng1 != "Rows 1–100 of 207" || next1 != path+"?page=2#bill-lines" {
			t.Errorf("issued %v, page 1: %d lines, %q, next %q; want 100, rows 1–100 of 207, page 2", issued, n1, rng1, next1)
		}
		if n3 != 7 || rng3 != "Rows 201–207 of 207" || next3 != "" || first3 == first1 {
			t.Errorf("issued %v, page 3: %d lines from task %s, %q, next %q; want the last 7, no next", issued, n3, first3, rng3, next3)
		}
		if nLast != n3 || firstLast != first3 {
			t.Errorf("issued %v, page 99 = %d lines from task %s, want the last page", issued, nLast, firstLast)
		}
		// vision's February: ¥112.50 (webtest.NewBillWorld) and 205 tasks of 10 minutes at ¥15 a card-hour.
		if total1 != total3 || total1 != "¥625.00" {
			t.Errorf("issued %v: totals %q and %q on pages 1 and 3, want the whole bill's ¥625.00 on both", issued, total1, total3)
		}
		if !issued {
			if r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/issue", "{}"); r.Code != http.StatusCreated {
				t.Fatalf("issue = %d %s", r.Code, r.Body)
			}
		}
	}
	for _, q := range []string{"?page=0", "?page=-1", "?page=two", "?page=10001", "?idle_page=0"} {
		r := w.Get(path+q, webtest.Bearer(w.Tokens["finance"])...)
		if field := strings.TrimPrefix(strings.SplitN(q, "=", 2)[0], "?"); r.Code != http.StatusBadRequest ||
			!strings.Contains(r.Body.String(), field) {
			t.Errorf("GET %s%s = %d %s, want 400 naming %s", path, q, r.Code, r.Body, field)
		}
	}
}
