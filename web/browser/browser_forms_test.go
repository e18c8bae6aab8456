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

// TestBrowserSubmitFormNamesEveryProblem fills the submit form in headless Chromium with
// four wrong fields — no cards, a runtime of −3 hours, an environment line without "=", a
// relative working directory — in both languages at 1600 and 390 px: the live check names all
// four as they are typed (the browser's own range check no longer holds it back), a submit
// names all four again, beside each field and in the form's status, and leaves the cursor on
// the first bad field, the cards.
func TestBrowserSubmitFormNamesEveryProblem(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 8))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 150*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	want := "gpus max_runtime_h env workdir"
	listed := `Array.from(document.querySelectorAll('[data-testid=form-problem-item]')).map(e => e.dataset.field).join(' ')`
	beside := `Array.from(document.querySelectorAll('[data-testid=field-error]')).filter(e => e.textContent.trim() !== '').map(e => e.dataset.field).join(' ')`
	for _, lang := range []string{"en", "zh-CN"} {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1600, 900}, {"phone", 390, 844}} {
			at := lang + " " + size.name
			err := chromedp.Do(b.ctx,
				chromedp.EmulateViewport(size.w, size.h),
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+"/queue"),
				chromedp.WaitVisible(css(`#f-gpus`)),
				chromedp.SendKeys(css(`#f-name`), "resnet"),
				chromedp.SendKeys(css(`#f-command`), "python\ntrain.py"),
				chromedp.SendKeys(css(`#f-gpus`), "0\t"),
				chromedp.SendKeys(css(`#f-max_runtime_h`), "-3\t"),
				chromedp.SendKeys(css(`#f-env`), "NOEQUALS\t"),
				chromedp.SendKeys(css(`#f-workdir`), "relative/dir\t"),
				chromedp.Poll[chromedp.Void](fmt.Sprintf(`%s === %q`, listed, want), chromedp.WithPollingTimeout(10*time.Second)),
				chromedp.ScrollIntoView(css(`#task-form-status`)),
				b.shot(fmt.Sprintf("forms-submit-live-%s-%s.png", lang, size.name)),
			)
			if err != nil {
				got, _ := chromedp.Run(b.ctx, chromedp.Text(css(`#task-form-status`)))
				t.Fatalf("%s: the live check does not name all four problems: %v; its status says %q (screenshots in %s)", at, err, got, b.shots)
			}
			if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](beside)); err != nil || got != want {
				t.Errorf("%s: live check: inputs showing a problem = %q, want %q (%v)", at, got, want, err)
			}
			err = chromedp.Do(b.ctx,
				chromedp.Click(css(`[data-testid=task-submit]`)),
				chromedp.Poll[chromedp.Void](`document.activeElement && document.activeElement.id === 'f-gpus'`, chromedp.WithPollingTimeout(10*time.Second)),
				b.shot(fmt.Sprintf("forms-submit-refused-%s-%s.png", lang, size.name)),
			)
			if err != nil {
				focus, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id || document.activeElement.tagName : ''`))
				t.Fatalf("%s: after a refused submit the cursor is on %q, want the cards (#f-gpus): %v (screenshots in %s)", at, focus, err, b.shots)
			}
			for what, js := range map[string]string{"listed in the status": listed, "beside the inputs": beside} {
				if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js)); err != nil || got != want {
					t.Errorf("%s: after submit, problems %s = %q, want %q (%v)", at, what, got, want, err)
				}
			}
			status, err := chromedp.Run(b.ctx, chromedp.Text(css(`#task-form-status`)))
			if err != nil {
				t.Fatal(err)
			}
			label := map[string]string{"en": "GPUs", "zh-CN": "卡数"}[lang]
			if !strings.Contains(status, label) || strings.Contains(status, "max_runtime") || strings.Contains(status, "workdir") {
				t.Errorf("%s: the status names the fields by their labels (%s), not their wire names: %q", at, label, status)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
