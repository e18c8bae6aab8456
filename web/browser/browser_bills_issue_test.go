package browser_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserIssueAllBills walks finance's "issue every bill" on /bills in headless Chromium:
// the offer in both languages at 1600 px and on a 390 px phone (no sideways scroll), the
// confirmation stating the month, the bills and their total, then the report on a phone in
// Chinese: vision issued with its total, nlp not, for lack of a price.
func TestBrowserIssueAllBills(t *testing.T) {
	t.Parallel()
	w := webtest.NewBillWorldPriced(t, false)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	if err := w.Store.SetPrice(ctx, models.Price{ProjectID: vision.ID, Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 2*time.Minute)
	if err := chromedp.Do(b.ctx, b.login("finance", "pw-finance")); err != nil {
		t.Fatal(err)
	}
	page := "/bills?month=" + webtest.BillMonth
	shootPages(t, b, srv.URL, "bills-issue", []shotPage{{"offer", page, `[data-testid=issue-all-form]`}})

	asked, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
		let asked = '';
		window.confirm = (msg) => { asked = msg; return false; };
		document.querySelector('[data-testid=issue-all-button]').click();
		return asked;
	})()`))
	if want := "现在出具 2026-02 的账单？账单 1 份，合计 ¥112.50。出具后不可更改，只能通过调整更正。 缺少价格、不会出账：1 份。"; err != nil || asked != want {
		t.Errorf("the confirmation = %q, %v; want %q", asked, err, want)
	}
	if ib, _ := w.Store.IssuedBills(ctx, webtest.BillMonth); len(ib) != 0 {
		t.Fatalf("a refused confirmation issued %d bills", len(ib))
	}
	err = chromedp.Do(b.ctx,
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(css(`[data-testid=issue-all-button]`)),
		chromedp.WaitVisible(css(`[data-testid=issue-report]`)),
		b.shot("bills-issue-report-zh-CN-phone.png"),
	)
	if err != nil {
		t.Fatalf("issue all: %v (screenshots in %s)", err, b.shots)
	}
	report, err := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=issue-report]`)))
	if got := strings.Join(strings.Fields(report), " "); err != nil ||
		got != "已出具 2026-02 的账单：合计 ¥112.50。 vision ¥112.50 未出账： nlp — A100-80G 没有价格：设置价格前无法出账。" {
		t.Errorf("report = %q, %v", got, err)
	}
	if width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || width > 390 {
		t.Errorf("the report is %d px wide on a phone, want at most 390 (%v)", width, err)
	}
	if ib, _ := w.Store.IssuedBills(ctx, webtest.BillMonth); len(ib) != 1 || ib[0].ProjectID != vision.ID {
		t.Errorf("issued bills = %+v, want vision's", ib)
	}
}
