package browser_test

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserAdvice shows, in both languages at desktop and phone sizes, a template's
// rightsizing advice and the weekly report's; no page scrolls sideways on the phone.
func TestBrowserAdvice(t *testing.T) {
	t.Parallel()
	s, tpl, _, run := webtest.AdviceWorld(t)
	run(webtest.T0.Add(-5*time.Hour), 0, 12)
	run(webtest.T0.Add(-3*time.Hour), 1, 20)
	s.SetNow(webtest.T0.Add(7 * 24 * time.Hour))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	pages := []shotPage{
		{"template", "/templates/" + strconv.FormatInt(tpl.ID, 10), `[data-testid=template-advice]`},
		{"report", "/reports?week=2026-W10", `[data-testid=advice-row]`},
	}
	shootPages(t, b, srv.URL, "advice", pages)
}
