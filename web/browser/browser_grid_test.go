package browser_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// gridSeen is the compact grid as the window shows it: its cells' width, how many there are,
// how many show their owner's name whole, and the page's width against the window's.
type gridSeen struct {
	Cell, Cells, Named, Owned, Width, Window int
}

// TestBrowserCompactGridSizedToTheScreen: a small fleet's compact grid takes cells large
// enough to read whole owners' names at 1600 px (they were 21 px, four letters, a twentieth of
// the screen), and on a 390 px phone the grid still fits the window, in both languages.
func TestBrowserCompactGridSizedToTheScreen(t *testing.T) {
	t.Parallel()
	ps, _ := webtest.SeededPages(t)
	srv := httptest.NewServer(ps.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 2*time.Minute)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, width := range []int64{1600, 390} {
			err := chromedp.Do(b.ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+"/?view=grid"), chromedp.WaitVisible(css(`[data-testid=compact-grid]`)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := chromedp.Run(b.ctx, chromedp.Evaluate[gridSeen](`(() => {
				const cells = [...document.querySelectorAll("[data-testid=compact-grid] [data-testid=gpu-cell]")];
				const names = cells.map(c => c.querySelector("span")).filter(s => s.textContent !== "");
				return {cell: Math.round(cells[0].getBoundingClientRect().width), cells: cells.length,
					named: names.filter(s => s.scrollWidth <= s.clientWidth).length, owned: names.length,
					width: document.documentElement.scrollWidth, window: window.innerWidth};
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if got.Width > got.Window || got.Cells == 0 || got.Owned == 0 || got.Named != got.Owned {
				t.Errorf("%s at %d px: %+v; want no sideways scroll and every owner's name whole", lang, width, got)
			}
			if width == 1600 && got.Cell < 48 {
				t.Errorf("%s at 1600 px: cells %d px wide, want 48 or more for a fleet of %d cards", lang, got.Cell, got.Cells)
			}
		}
	}
}
