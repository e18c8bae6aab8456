package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// seen is what a page shows of the elements sel at the window's width: how many there are,
// how many lie whole inside the window and inside the box of any table that scrolls them,
// the page's width against the window's, and the narrowest of the cells narrow names.
type seen struct {
	Count, Inside, Width, Window, Narrowest int
}

// lookAt measures seen for sel (and narrow, "" for none) on the page as it is.
func lookAt(sel, narrow string) chromedp.Action[seen] {
	return chromedp.Evaluate[seen](fmt.Sprintf(`((sel, narrow) => {
		const els = [...document.querySelectorAll(sel)];
		const inside = els.filter(e => {
			const r = e.getBoundingClientRect();
			let right = window.innerWidth, left = 0;
			const wrap = e.closest(".table-wrap");
			if (wrap) { const w = wrap.getBoundingClientRect(); right = Math.min(right, w.right); left = Math.max(left, w.left); }
			return r.width > 0 && r.left >= left - 0.5 && r.right <= right + 0.5;
		}).length;
		const widths = narrow ? [...document.querySelectorAll(narrow)].map(e => Math.round(e.getBoundingClientRect().width)) : [];
		return {count: els.length, inside: inside, width: document.documentElement.scrollWidth, window: window.innerWidth,
			narrowest: widths.length ? Math.min(...widths) : 0};
	})(%q, %q)`, sel, narrow))
}

// TestBrowserBillsAndAlertsOnAPhone: the bills, a bill and the alerts fit the window at 390
// and at 1600 px, in both languages, with every amount whole on the screen (a table's amount
// column once lay past its right edge), a long bill a page of lines at a time with the whole
// bill's total, and resolved alerts one row per kind and task whose sentences read on a phone
// (they were squeezed to a few characters a line).
func TestBrowserBillsAndAlertsOnAPhone(t *testing.T) {
	t.Parallel()
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	tk := w.Run(t, webtest.Task("many-lines").Of("vision").Ready(), webtest.Feb(14, 0), 10*time.Minute, 0, nil, 2)
	for i := range 105 { // a bill of more than a page of lines
		w.Run(t, webtest.Task("sweep-"+strconv.Itoa(i)).Of("vision").Ready(), webtest.Feb(15, float64(i)*0.2), 10*time.Minute, 0, nil, 3)
	}
	for i := range 3 {
		gpu := strconv.Itoa(i)
		in := models.AlertInput{Kind: models.AlertGPUMemory, Subject: "task " + strconv.FormatInt(tk.ID, 10) + " GPU " + gpu, TaskID: tk.ID,
			NodeID: w.Node.ID, Pool: "a100", Code: "gpu_memory",
			Params: []string{strconv.FormatInt(tk.ID, 10), tk.Name, "vision", "a100-01", gpu, "79000", "81920", "96", "95"}}
		if _, _, err := w.Store.RaiseAlert(ctx, in, webtest.T0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := w.Store.ResolveAlert(ctx, in.Kind, in.Subject, webtest.T0.Add(-30*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 3*time.Minute)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	bill := "/bills/vision/" + webtest.BillMonth
	pages := []struct {
		name, path, amounts, narrow string
		count                       int
	}{
		{"bills", "/bills?month=" + webtest.BillMonth, `[data-testid=bill-amount]`, "", 2},
		{"bill", bill, `[data-testid=bill-line] [data-testid=line-amount]`, "", 100},
		{"bill-total", bill, `[data-testid=bill-total]`, "", 1},
		{"bill-last-page", bill + "?page=2", `[data-testid=bill-line] [data-testid=line-amount]`, "", 8},
		{"alerts", "/alerts", `[data-testid=alerts-resolved] [data-testid=alert-group]`, `[data-testid=alerts-resolved] td.reason-text`, 1},
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, width := range []int64{1600, 390} {
			for _, p := range pages {
				err := chromedp.Do(b.ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(srv.URL+"/lang?set="+lang),
					chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(css(`main`)),
					b.shot(fmt.Sprintf("phones-%s-%s-%d.png", p.name, lang, width)))
				if err != nil {
					t.Fatalf("%s %d %s: %v", lang, width, p.path, err)
				}
				got, err := chromedp.Run(b.ctx, lookAt(p.amounts, p.narrow))
				if err != nil {
					t.Fatal(err)
				}
				if got.Width > got.Window {
					t.Errorf("%s at %d px, %s: the page is %d px wide, want at most %d", lang, width, p.path, got.Width, got.Window)
				}
				if got.Count != p.count || got.Inside != got.Count {
					t.Errorf("%s at %d px, %s: %d of %d %s whole on the screen, want %d of %d", lang, width, p.path, got.Inside, got.Count,
						p.amounts, p.count, p.count)
				}
				if p.narrow != "" && got.Narrowest < 200 {
					t.Errorf("%s at %d px, %s: a resolved alert's sentence is %d px wide, want 200 or more", lang, width, p.path, got.Narrowest)
				}
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
