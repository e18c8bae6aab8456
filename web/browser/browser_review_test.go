package browser_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/demo"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/phrase"
	"kashi/web/webtest"
)

// TestBrowserPilotReview walks a pool's pilot review in headless Chromium over the demo's
// past month: from the pools page to the review, then last month's, with its verdicts,
// peaks, troughs and cost, in both languages on a desktop and a phone, none scrolling
// sideways; then a pool's change, a price's, a quota's and a project's idle reclaim's, where
// each is listed (an approved request's in the approvals' history) and its page.
func TestBrowserPilotReview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 3, 4, 0, 30, 0, 0, time.UTC)
	store := modelstest.SQLite(t, models.Options{})
	if _, _, err := demo.Seed(ctx, store, start); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.FillHistory(ctx, store, start, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateUser(ctx, "ana", "pw-ana-long-enough", models.RoleAdmin, start); err != nil {
		t.Fatal(err)
	}
	cfg := webtest.TestCfg()
	cfg.Leads, cfg.Words = notice.Leads{Store: store}, phrase.Locale{Lang: phrase.LangZH}
	s := webtest.NewServerOn(t, store, cfg)
	s.SetNow(start)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 5*time.Minute)
	err := chromedp.Do(b.ctx,
		b.login("ana", "pw-ana-long-enough"),
		chromedp.Navigate(srv.URL+"/pools"),
		chromedp.Click(css(`[data-pool=a100] [data-testid=pool-review]`)),
		chromedp.WaitVisible(css(`[data-testid=review-verdicts]`)),
		chromedp.Click(css(`[data-testid=review-last-month]`)),
		chromedp.WaitVisible(css(`[data-testid=review-peak-table]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=review-verdict]').length`))
	if err != nil || n != 4 {
		t.Fatalf("verdicts = %d, %v; want 4", n, err)
	}
	const month = "/pools/a100/review?from=2026-02-01&to=2026-02-28"
	shootPages(t, b, srv.URL, "review", []shotPage{
		{"verdicts", month, `[data-testid=review-verdicts]`},
		{"chart", month, `[data-testid=review-chart]`},
		{"peaks", month, `[data-testid=review-peak-table]`},
		{"cost", month, `[data-testid=review-cost-table]`},
		{"rtx-troughs", "/pools/rtx4090/review?from=2026-02-01&to=2026-02-28", `[data-testid=review-troughs]`},
	})

	// The demo's pool change in the past (the RTX 4090 pool's, 15 February): the version list
	// loads what it saved; its page shows the before and after and the counterfactual.
	shootPages(t, b, srv.URL, "change", []shotPage{
		{"versions", "/pools/rtx4090/edit", `[data-testid=change-effect-text]`},
		{"page", "/pools/rtx4090/changes/2", `[data-testid=change-counter-table]`},
		{"report", "/reports?week=2026-W07", `[data-testid=report-change]`},
	})
	shootChangeKinds(t, b, srv.URL, store)

	// "Message the leads" tells them, and says so in place of the button.
	err = chromedp.Do(b.ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.URL+month),
		chromedp.Click(css(`[data-testid=review-send-button]`)), chromedp.WaitVisible(css(`[data-testid=review-sent]`)),
		chromedp.ScrollIntoView(css(`[data-testid=review-sent]`)), b.shot("review-sent-phone.png"))
	if err != nil {
		t.Fatal(err)
	}
}
