package browser_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserJoinTokens issues a join token on /join-tokens in headless Chromium, in both
// languages on a 390×844 phone and at 1600 px: the new token is shown whole inside its box
// (the page never scrolls sideways), its copy button copies it and says so, and the list of
// tokens not yet used names what each is bound to.
func TestBrowserJoinTokens(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	s.Register(webtest.Node("gpu-07").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	copied := map[string]string{"en": "Copied", "zh-CN": "已复制"}
	bound := map[string]string{"en": "machine rack-", "zh-CN": "机器 rack-"}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"phone", 390, 844}, {"desktop", 1600, 900}} {
			machine := "rack-" + lang + "-" + size.name
			err := chromedp.Do(b.ctx,
				chromedp.EmulateViewport(size.w, size.h),
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+"/join-tokens"),
				chromedp.WaitVisible(css(`form[action="/join-tokens"] input[name=machine_id]`)),
				chromedp.SendKeys(css(`form[action="/join-tokens"] input[name=machine_id]`), machine),
				chromedp.Submit(css(`form[action="/join-tokens"]`)),
				chromedp.WaitVisible(css(`[data-testid=new-join-token]`)),
				b.shot(fmt.Sprintf("join-tokens-new-%s-%s.png", lang, size.name)),
			)
			if err != nil {
				t.Fatalf("%s %s: issue a token: %v (screenshots in %s)", lang, size.name, err, b.shots)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if width > int(size.w) {
				out, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](widest))
				t.Errorf("%s %s /join-tokens is %d px wide, want at most %d; past the edge: %s", lang, size.name, width, size.w, out)
			}
			right, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](
				`Math.max(document.querySelector('[data-testid=new-join-token]').getBoundingClientRect().right, document.querySelector('[data-testid=copy-join-token]').getBoundingClientRect().right)`))
			if err != nil || right > float64(size.w) {
				t.Errorf("%s %s: the new token and its copy button reach %.0f px, want inside %d (%v)", lang, size.name, right, size.w, err)
			}
			token, err := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=new-join-token]`)))
			if err != nil || !strings.HasPrefix(strings.TrimSpace(token), "kj1_") {
				t.Fatalf("%s %s: new token = %q, %v", lang, size.name, token, err)
			}
			rows, err := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=join-active]`)))
			if err != nil || !strings.Contains(rows, bound[lang]+lang+"-"+size.name) {
				t.Errorf("%s %s: the list of tokens = %q, want %q in it (%v)", lang, size.name, rows, bound[lang]+lang+"-"+size.name, err)
			}
			err = chromedp.Do(b.ctx,
				chromedp.Click(css(`[data-testid=copy-join-token]`)),
				chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid=copy-join-token]').textContent === %q`, copied[lang]),
					chromedp.WithPollingTimeout(5*time.Second)),
			)
			if err != nil {
				said, _ := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=copy-join-token]`)))
				t.Errorf("%s %s: the copy button says %q after a click, want %q (%v)", lang, size.name, said, copied[lang], err)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}

// TestBrowserCardCharts opens a task's page in both languages at 1600 and 390 px: each card's
// chart shows its axes' values, its times and its peak as text inside the chart, none cut at
// its edges; the page never scrolls sideways. A viewer's empty tasks page says why, on a
// phone too.
func TestBrowserCardCharts(t *testing.T) {
	t.Parallel()
	s, _, _, run := webtest.AdviceWorld(t)
	run(webtest.T0.Add(-3*time.Hour), 0, 20)
	s.SetNow(webtest.T0)
	s.UserToken("vic", models.RoleViewer)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "words", []shotPage{{"task", "/tasks/1", `[data-testid=card-chart]`}})
	for _, size := range []int64{1600, 390} {
		if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size, 900), chromedp.Navigate(srv.URL+"/tasks/1"),
			chromedp.WaitVisible(css(`[data-testid=card-chart]`))); err != nil {
			t.Fatal(err)
		}
		// Each label's box lies within its chart's.
		if out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](labelsOutside(`[data-testid=card-chart]`))); err != nil || !strings.HasSuffix(out, "outside: ") || strings.HasPrefix(out, "0 ") {
			t.Errorf("%d px: the card charts' labels: %s (%v)", size, out, err)
		}
	}
	if err := chromedp.Do(b.ctx, b.logout(), b.login("vic", "pw-vic")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "words-viewer", []shotPage{{"tasks", "/tasks", `[data-testid=tasks-empty]`}})
}

// labelsOutside is a script that counts the text labels of the SVG charts sel selects and
// names those whose box reaches outside their chart's (or is empty): "N labels; outside: …".
func labelsOutside(sel string) string {
	return `(() => {
		const bad = [];
		let n = 0;
		for (const svg of document.querySelectorAll('` + sel + `')) {
			const r = svg.getBoundingClientRect();
			for (const t of svg.querySelectorAll('text')) {
				const b = t.getBoundingClientRect();
				n++;
				if (b.width === 0 || b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5) {
					bad.push(t.textContent + ' at ' + Math.round(b.left) + '–' + Math.round(b.right));
				}
			}
		}
		return n + ' labels; outside: ' + bad.join(', ');
	})()`
}

// TestBrowserIdleNotice shows an idle notice to its task's owner in both languages at 1600
// and 390 px: the notifications page and the task's page say when the cards will be
// reclaimed unless kept, beside keep and release; no page scrolls sideways.
func TestBrowserIdleNotice(t *testing.T) {
	t.Parallel()
	w := webtest.NewIdleWorld(t)
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("alice", "pw-alice")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "idle", []shotPage{
		{"notifications", "/notifications", `[data-testid=idle-task] [data-testid=idle-deadline]`},
		{"task", fmt.Sprintf("/tasks/%d", w.Task.ID), `[data-testid=task-deadline]`},
	})
}
