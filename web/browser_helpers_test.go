package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium walking a test server at url, writing screenshots to shots
// ($KASHI_SCREENSHOTS, else a temporary folder).
type browser struct {
	ctx   context.Context
	url   string
	shots string
}

// newBrowser starts Chromium for t, or skips t when it is not installed. The walk's context
// ends after limit.
func newBrowser(t *testing.T, url string, limit time.Duration) *browser {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed")
	}
	shots := os.Getenv("KASHI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// The first Run starts the browser; the walk then runs under the time limit.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	wctx, cancel := context.WithTimeout(bctx, limit)
	t.Cleanup(cancel)
	return &browser{ctx: wctx, url: url, shots: shots}
}

// css selects by CSS.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// shot saves a full-page screenshot as name.
func (b *browser) shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		png, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(b.shots, name), png, 0o644)
	})
}

// login signs in through the login form.
func (b *browser) login(user, password string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(b.url+"/login"),
		chromedp.WaitVisible(css(`input[name=username]`)),
		chromedp.SendKeys(css(`input[name=username]`), user),
		chromedp.SendKeys(css(`input[name=password]`), password),
		chromedp.Submit(css(`form[action="/login"]`)),
		chromedp.WaitVisible(css(`[data-testid=who]`)),
	)
}

// logout signs out with the header's button.
func (b *browser) logout() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Submit(css(`[data-testid=who]`)),
		chromedp.WaitVisible(css(`input[name=username]`)),
	)
}
