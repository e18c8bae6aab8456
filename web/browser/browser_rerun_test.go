package browser_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserRerun walks the pages of a task rerun after its node was lost, in headless
// Chromium, in both languages, at 1600 px and on a 390 px phone (none scrolls sideways): the
// task's page with its attempts, the bill that files the card-hours lost as rerun and the
// week's report of what reruns cost; and the submit form's attempts.
func TestBrowserRerun(t *testing.T) {
	t.Parallel()
	w := webtest.NewBillWorld(t)
	tk := w.RunRerun(t, webtest.Task("pretrain").Of("vision").Ready().Attempts(3), webtest.Feb(13, 0), 30*time.Minute, 2*time.Hour, time.Hour, 90)
	if err := w.Store.RollUp(context.Background(), webtest.T0, 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "rerun", []shotPage{
		{"task", "/tasks/" + webtest.IDStr(tk.ID), `[data-testid=task-attempts]`},
		{"bill", "/bills/vision/" + webtest.BillMonth, `[data-testid=bill-rerun-cost]`},
		{"report", "/reports?week=" + webtest.ReportWeek, `[data-testid=report-reruns]`},
		{"form", "/queue", `#f-max_attempts`},
	})
}
