package web_test

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserAdvice shows, in both languages at desktop and phone sizes, a template's
// rightsizing advice and the weekly report's; no page scrolls sideways on the phone.
func TestBrowserAdvice(t *testing.T) {
	s, tpl, _, run := adviceWorld(t)
	run(t0.Add(-5*time.Hour), 0, 12)
	run(t0.Add(-3*time.Hour), 1, 20)
	s.setNow(t0.Add(7 * 24 * time.Hour))
	srv := httptest.NewServer(s.e)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path, wait string }{
		{"template", "/templates/" + strconv.FormatInt(tpl.ID, 10), `[data-testid=template-advice]`},
		{"report", "/reports?week=2026-W10", `[data-testid=advice-row]`},
	}
	for _, lang := range []string{"en", "zh-CN"} {
		if err := chromedp.Do(b.ctx, chromedp.Navigate(srv.URL+"/lang?set="+lang)); err != nil {
			t.Fatal(err)
		}
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
			for _, p := range pages {
				err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(srv.URL+p.path),
					chromedp.WaitVisible(css(p.wait)), chromedp.ScrollIntoView(css(p.wait)),
					b.shot(fmt.Sprintf("advice-%s-%s-%s.png", p.name, lang, size.name)))
				if err != nil {
					t.Fatalf("%s %s %s: %v", lang, size.name, p.path, err)
				}
				width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
				if err != nil {
					t.Fatal(err)
				}
				if width > int(size.w) {
					t.Errorf("%s %s %s is %d px wide, want at most %d", lang, size.name, p.path, width, size.w)
				}
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
