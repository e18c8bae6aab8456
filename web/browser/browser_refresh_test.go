package browser_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// refreshKeeps focuses the first element sel in the region in, scrolls it to the middle of
// the screen, and refreshes the region poll as its own poll does (htmx.ajax from the region,
// which answers with it and the parts it carries out of band, in among them), or, with wait,
// waits for the region's own poll to replace it. It answers "" when the element's
// counterpart in the new content has the focus and the page has not scrolled, else what
// went wrong.
func refreshKeeps(in, poll, sel string, wait bool) chromedp.Action[string] {
	return chromedp.Evaluate[string](fmt.Sprintf(`(async (inSel, regionSel, sel, wait) => {
		const region = document.querySelector(regionSel);
		const el = document.querySelector(inSel + " " + sel);
		if (!region || !el) return "no " + sel + " in " + inSel;
		el.scrollIntoView({block: "center"});
		el.focus();
		if (document.activeElement !== el) return "could not focus " + sel;
		const y = window.scrollY, href = el.getAttribute("href");
		if (!wait) {
			await htmx.ajax("GET", region.getAttribute("hx-get"), {source: region, target: region, swap: "outerHTML"});
		}
		for (let i = 0; i < 200 && region.isConnected; i++) await new Promise(r => setTimeout(r, 50));
		await new Promise(r => setTimeout(r, 100));
		if (region.isConnected) return regionSel + " was not refreshed";
		const a = document.activeElement;
		if (a === el || a === document.body || !a.isConnected) return "focus went to " + a.tagName + " after the refresh";
		if (a.getAttribute("href") !== href || !a.closest("[data-refresh]")) return "focus went to " + a.outerHTML.slice(0, 120);
		if (Math.abs(window.scrollY - y) > 1) return "the page scrolled from " + y + " to " + window.scrollY;
		return "";
	})(%q, %q, %q, %v)`, in, poll, sel, wait), chromedp.EvalAwaitPromise)
}

// TestBrowserRefreshKeepsFocus: where a region refreshes itself (the queue's lanes with the
// running tasks and free capacity they carry, the board, the compact grid, a task's page),
// the link a keyboard user had focused keeps the focus and the page keeps its scroll, in both
// languages at 1600 and 390 px; the board's own poll (no filter in its trigger now) still
// refreshes it, and no page logs a content-security-policy refusal.
func TestBrowserRefreshKeepsFocus(t *testing.T) {
	t.Parallel()
	ps, pages := webtest.SeededPages(t)
	srv := httptest.NewServer(ps.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 3*time.Minute)
	var (
		mu      sync.Mutex
		refused []string
	)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(b.ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			for _, a := range e.Args {
				msg += string(a.Value) + a.Description + " "
			}
		case *runtime.EventExceptionThrown:
			msg = e.ExceptionDetails.Text + " " + fmt.Sprint(e.ExceptionDetails.Exception)
		case *log.EventEntryAdded:
			msg = e.Entry.Text
		}
		if strings.Contains(msg, "Content Security Policy") || strings.Contains(msg, "EvalError") {
			mu.Lock()
			refused = append(refused, msg)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	task := ""
	for _, p := range pages {
		if strings.HasPrefix(p, "/tasks/") && task == "" {
			task = p
		}
	}
	cases := []struct{ path, region, sel string }{
		{"/queue", "#queue-lanes", `a[href^="/tasks/"]`},
		{"/queue", "#running-tasks", `a[href^="/tasks/"]`},
		{"/", "#board-grid", `a[href^="/gpus/"]`},
		{"/?view=grid", "#board-grid", `a[href^="/gpus/"]`},
		{task, "#task-live", `a[href]`},
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, w := range []int64{1600, 390} {
			for _, c := range cases {
				region := c.region
				if c.region == "#running-tasks" {
					region = "#queue-lanes" // refreshed out of band with the lanes
				}
				err := chromedp.Do(b.ctx, chromedp.EmulateViewport(w, 900),
					chromedp.Navigate(srv.URL+"/lang?set="+lang), chromedp.Navigate(srv.URL+c.path),
					chromedp.WaitVisible(css(c.region)))
				if err != nil {
					t.Fatalf("%s %d %s: %v", lang, w, c.path, err)
				}
				got, err := chromedp.Run(b.ctx, refreshKeeps(c.region, region, c.sel, false))
				if err != nil {
					t.Fatalf("%s %d %s: %v", lang, w, c.path, err)
				}
				if got != "" {
					t.Errorf("%s at %d px, %s %s: %s", lang, w, c.path, c.region, got)
				}
			}
		}
	}
	// The board's own poll, every 5 s.
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1600, 900), chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(css("#board-grid"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(b.ctx, refreshKeeps("#board-grid", "#board-grid", `a[href^="/gpus/"]`, true))
	if err != nil || got != "" {
		t.Errorf("the board's own refresh: %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) > 0 {
		t.Errorf("the pages logged %d content-security-policy refusals, the first: %s", len(refused), refused[0])
	}
}
