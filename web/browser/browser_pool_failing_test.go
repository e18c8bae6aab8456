package browser_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserPoolFailing shows a pool that stopped after machines failed to boot on /pools, in
// both languages on a desktop and a phone without sideways scrolling, and resumes it with
// its button on the phone.
func TestBrowserPoolFailing(t *testing.T) {
	t.Parallel()
	s := webtest.NewPoolServer(t)
	s.FailBoots("k", 3)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "pool-failing", []shotPage{{"pools", "/pools", `[data-testid=pool-resume]`}})
	state, err := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=pool-state]`)))
	if err != nil || state != "故障：机器无法启动" {
		t.Errorf("zh state badge = %q, %v", state, err)
	}
	err = chromedp.Do(b.ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.URL+"/pools"),
		chromedp.WaitVisible(css(`[data-testid=pool-resume]`)),
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), // resuming asks first
		chromedp.Click(css(`[data-testid=pool-resume]`)),
		chromedp.WaitNotPresent(css(`[data-testid=pool-failing]`)),
		b.shot("pool-failing-resumed-zh-CN-phone.png"))
	if err != nil {
		t.Fatalf("resume: %v (screenshots in %s)", err, b.shots)
	}
	if state, _ := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=pool-state]`))); strings.Contains(state, "故障") {
		t.Errorf("state badge after the resume = %q", state)
	}
}
