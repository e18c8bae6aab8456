package browser_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// widest names the elements that reach past the viewport's right edge, deepest first: the
// ones to fix when a page scrolls sideways.
const widest = `(() => {
	const w = document.documentElement.clientWidth, out = [];
	for (const el of document.body.querySelectorAll('*')) {
		const r = el.getBoundingClientRect();
		if (r.right <= w + 0.5 || r.width === 0) continue;
		if ([...el.children].some(c => c.getBoundingClientRect().right > w + 0.5)) continue;
		out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
			(el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
			' right=' + Math.round(r.right));
	}
	return out.slice(0, 5).join('; ');
})()`

// shownText is the text a page shows, as the browser lays it out (what scripts wrote
// included), less the brand, the language switcher, code and the names of tasks.
const shownText = `(() => {
	const b = document.body.cloneNode(true);
	b.querySelectorAll('script, style, code, pre, noscript, .brand, .langs, [data-testid=task-name]').forEach(e => e.remove());
	return b.textContent.replace(/\s+/g, ' ');
})()`

// TestBrowserPhoneEveryPage opens every page of the app as an admin on a 390×844 phone, in
// English and Chinese, and fails when one scrolls sideways, naming the elements that stick
// out, or when an English page shows Chinese or a Chinese page none. Screenshots go to
// KASHI_SCREENSHOTS when set.
func TestBrowserPhoneEveryPage(t *testing.T) {
	t.Parallel()
	ps, pages := webtest.SeededPages(t)
	srv := httptest.NewServer(ps.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 3*time.Minute)
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(390, 844), b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "/login")
	for _, lang := range []string{"en", "zh-CN"} {
		for _, path := range pages {
			name := fmt.Sprintf("phone-%s%s.png", lang, strings.NewReplacer("/", "-", "?", "-", "&", "-", "=", "-").Replace(path))
			err := chromedp.Do(b.ctx,
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+path),
				chromedp.WaitVisible(css(`main`)),
				b.shot(name),
			)
			if err != nil {
				t.Fatalf("phone %s %s: %v", lang, path, err)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if width > 390 {
				out, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](widest))
				t.Errorf("phone %s %s is %d px wide, want at most 390 (%s); past the edge: %s", lang, path, width, name, out)
			}
			text, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](shownText))
			if err != nil {
				t.Fatal(err)
			}
			han := strings.IndexFunc(text, func(r rune) bool { return unicode.Is(unicode.Han, r) })
			switch {
			case lang == "en" && han >= 0:
				t.Errorf("phone en %s shows Chinese: %q", path, webtest.Around(text, text[han:han+3]))
			case lang != "en" && han < 0:
				t.Errorf("phone %s %s shows no Chinese", lang, path)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
