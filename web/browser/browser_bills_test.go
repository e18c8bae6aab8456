package browser_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// download is what a fetch of a download link answered.
type download struct {
	Status int    `json:"status"`
	Type   string `json:"type"`
	Size   int    `json:"size"`
	Head   string `json:"head"`
}

// fetchDownload fetches the href of the link sel from the page, with the page's cookies.
func fetchDownload(sel string) chromedp.Action[download] {
	return chromedp.Evaluate[download](`(async () => {
		const r = await fetch(document.querySelector(`+"`"+sel+"`"+`).href);
		const b = new Uint8Array(await r.arrayBuffer());
		return {status: r.status, type: r.headers.get("content-type"), size: b.length,
			head: String.fromCharCode(...b.slice(0, 40))};
	})()`, chromedp.EvalAwaitPromise)
}

// TestBrowserPricesAdjustIssue walks a fresh install's first bill in headless Chromium:
// finance sees the bill cannot be issued for want of a price and may not set one; an admin
// follows the bill's link and sets it; finance adds an adjustment, issues the bill and
// downloads it as CSV and XLSX; the bill and the prices fit a phone in Chinese.
func TestBrowserPricesAdjustIssue(t *testing.T) {
	t.Parallel()
	w := webtest.NewBillWorldPriced(t, false)
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)
	bill := srv.URL + "/bills/vision/" + webtest.BillMonth

	err := chromedp.Do(b.ctx,
		b.login("finance", "pw-finance"),
		chromedp.Navigate(bill),
		chromedp.WaitVisible(css(`[data-testid=missing-prices]`)),
		b.shot("bill-1-finance-no-price.png"),
		chromedp.Navigate(srv.URL+"/prices"),
		chromedp.WaitVisible(css(`[data-testid=prices-readonly]`)),
		b.shot("bill-2-finance-prices.png"),
		b.logout(),
		b.login("tester", "pw-tester"),
		chromedp.Navigate(bill),
		chromedp.Click(css(`[data-testid=set-price-link]`)),
		chromedp.WaitVisible(css(`[data-testid=price-form]`)),
		chromedp.SendKeys(css(`[data-testid=price-form] input[name=rate]`), "15"),
		chromedp.SendKeys(css(`[data-testid=price-form] input[name=overflow_rate]`), "25"),
		b.shot("bill-3-admin-price-form.png"),
		chromedp.Click(css(`[data-testid=price-submit]`)),
		chromedp.WaitVisible(css(`[data-testid=notice]`)),
		b.shot("bill-4-admin-price-saved.png"),
	)
	if err != nil {
		t.Fatalf("prices: %v (screenshots in %s)", err, b.shots)
	}
	finance := func() ([]string, error) {
		var got []string
		for _, sel := range []string{`[data-testid=notice]`, `[data-testid=bill-total]`, `[data-testid=adjustment]`} {
			s, err := chromedp.Run(b.ctx, chromedp.Text(css(sel)))
			if err != nil {
				return nil, err
			}
			got = append(got, s)
		}
		return got, nil
	}
	err = chromedp.Do(b.ctx,
		b.logout(),
		b.login("finance", "pw-finance"),
		chromedp.Navigate(bill),
		chromedp.WaitVisible(css(`[data-testid=adjust-form]`)),
		chromedp.SendKeys(css(`[data-testid=adjust-form] input[name=amount]`), "-10"),
		chromedp.SendKeys(css(`[data-testid=adjust-form] input[name=reason]`), "Node down on the 12th"),
		chromedp.Click(css(`[data-testid=adjust-submit]`)),
		chromedp.WaitVisible(css(`[data-testid=adjustment]`)),
		b.shot("bill-5-finance-adjusted.png"),
	)
	if err != nil {
		t.Fatalf("adjustment: %v (screenshots in %s)", err, b.shots)
	}
	got, err := finance()
	if err != nil {
		t.Fatal(err)
	}
	// vision's February: 3 h × 2 cards + 1.5 h at ¥15, less ¥10.
	if !strings.Contains(got[1], "¥102.50") || !strings.Contains(got[2], "-¥10.00") {
		t.Errorf("after the adjustment: notice %q, total %q, adjustment %q; want ¥102.50 and -¥10.00", got[0], got[1], got[2])
	}
	err = chromedp.Do(b.ctx,
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), // issuing asks first
		chromedp.Click(css(`[data-testid=issue-button]`)),
		chromedp.WaitVisible(css(`[data-testid=issued]`)),
		b.shot("bill-6-finance-issued.png"),
	)
	if err != nil {
		t.Fatalf("issue: %v (screenshots in %s)", err, b.shots)
	}
	for sel, want := range map[string]download{
		`[data-testid=download-csv]`:  {Status: 200, Type: "text/csv; charset=utf-8"},
		`[data-testid=download-xlsx]`: {Status: 200, Type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Head: "PK"},
	} {
		d, err := chromedp.Run(b.ctx, fetchDownload(sel))
		if err != nil {
			t.Fatalf("download %s: %v", sel, err)
		}
		if d.Status != want.Status || d.Type != want.Type || d.Size < 100 || !strings.HasPrefix(d.Head, want.Head) {
			t.Errorf("download %s = %+v, want %+v", sel, d, want)
		}
	}
	if ib, err := w.Store.IssuedBills(context.Background(), webtest.BillMonth); err != nil || len(ib) != 1 || ib[0].TotalFen != 10250 {
		t.Errorf("issued bills = %+v, %v; want vision's at 10250 fen", ib, err)
	}
	// Finance reads the issued bill and the prices on a phone in Chinese, without sideways
	// scrolling.
	for _, path := range []string{bill, srv.URL + "/prices"} {
		err := chromedp.Do(b.ctx,
			chromedp.EmulateViewport(390, 844),
			chromedp.Navigate(srv.URL+"/lang?set=zh-CN"),
			chromedp.Navigate(path),
			chromedp.WaitVisible(css(`main`)),
			b.shot("bill-7-finance-phone-zh"+strings.ReplaceAll(strings.TrimPrefix(path, srv.URL), "/", "-")+".png"),
		)
		if err != nil {
			t.Fatalf("phone %s: %v", path, err)
		}
		if width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || width > 390 {
			t.Errorf("phone zh %s is %d px wide, want at most 390 (%v)", path, width, err)
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
