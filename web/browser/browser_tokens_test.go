package browser_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserNewToken makes an API token on /tokens in headless Chromium, in both languages
// on a 390×844 phone and at 1600 px: the new token is shown whole inside its box (it wraps;
// the page never scrolls sideways), and its copy button copies it and says so.
func TestBrowserNewToken(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	copied := map[string]string{"en": "Copied", "zh-CN": "已复制"}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"phone", 390, 844}, {"desktop", 1600, 900}} {
			name := fmt.Sprintf("tokens-new-%s-%s.png", lang, size.name)
			err := chromedp.Do(b.ctx,
				chromedp.EmulateViewport(size.w, size.h),
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+"/tokens"),
				chromedp.WaitVisible(css(`form[action="/tokens"] input[name=name]`)),
				chromedp.SendKeys(css(`form[action="/tokens"] input[name=name]`), "laptop "+lang+" "+size.name),
				chromedp.Submit(css(`form[action="/tokens"]`)),
				chromedp.WaitVisible(css(`[data-testid=new-token]`)),
				b.shot(name),
			)
			if err != nil {
				t.Fatalf("%s %s: make a token: %v (screenshots in %s)", lang, size.name, err, b.shots)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if width > int(size.w) {
				out, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](widest))
				t.Errorf("%s %s /tokens with a new token is %d px wide, want at most %d (%s); past the edge: %s", lang, size.name, width, size.w, name, out)
			}
			right, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](
				`document.querySelector('[data-testid=new-token]').getBoundingClientRect().right`))
			if err != nil || right > float64(size.w) {
				t.Errorf("%s %s: the new token reaches %.0f px, want inside %d (%v)", lang, size.name, right, size.w, err)
			}
			token, err := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=new-token]`)))
			if err != nil || !strings.HasPrefix(strings.TrimSpace(token), "ka_") {
				t.Fatalf("%s %s: new token = %q, %v", lang, size.name, token, err)
			}
			if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=copy-token]').length`)); err != nil || n != 1 {
				t.Errorf("%s %s: %d copy buttons beside the new token, want 1 (%v)", lang, size.name, n, err)
				continue
			}
			err = chromedp.Do(b.ctx,
				chromedp.Click(css(`[data-testid=copy-token]`)),
				chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid=copy-token]').textContent === %q`, copied[lang]),
					chromedp.WithPollingTimeout(5*time.Second)),
			)
			if err != nil {
				said, _ := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=copy-token]`)))
				t.Errorf("%s %s: the copy button says %q after a click, want %q (%v)", lang, size.name, said, copied[lang], err)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
