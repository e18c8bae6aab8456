package browser_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium walking a test server at url. It writes its screenshots to
// shots when $KASHI_SCREENSHOTS names that folder, for a person to look at; without it, it
// takes none: encoding full-page PNGs that a temporary folder would throw away was most of the
// browser tests' CPU.
type browser struct {
	ctx   context.Context
	url   string
	shots string
}

// keepsShots reports whether the walk writes its screenshots.
func (b *browser) keepsShots() bool { return b.shots != noShots }

// noShots is what shots says when no screenshots are written.
const noShots = "(none: set KASHI_SCREENSHOTS to a folder to keep them)"

// chromium is the one headless Chromium the package's tests share; each test opens its own
// isolated browser context in it (cookies, storage and tabs of its own), which costs a tab,
// not a browser start.
var chromium struct {
	once sync.Once
	ctx  context.Context // the browser's first tab; nil when it did not start
	err  error
	stop func()
}

// TestMain closes the shared Chromium after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.stop != nil {
		chromium.stop()
	}
	os.Exit(code)
}

// startChromium starts the shared Chromium once; it reports false when none is installed.
func startChromium() bool {
	chromium.once.Do(func() {
		path, err := exec.LookPath("chromium")
		if err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "kashi-chromium-")
		if err != nil {
			chromium.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
			chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900))
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		chromium.stop = func() { cancelBrowser(); cancelAlloc(); os.RemoveAll(dir) }
		// The first Run starts the browser.
		if chromium.err = chromedp.Do(bctx, chromedp.Navigate("about:blank")); chromium.err == nil {
			chromium.ctx = bctx
		}
	})
	return chromium.ctx != nil || chromium.err != nil
}

// newBrowser opens an isolated browser context for t in the shared Chromium, or skips t when
// Chromium is not installed. The walk's context ends after limit.
func newBrowser(t *testing.T, url string, limit time.Duration) *browser {
	t.Helper()
	if !startChromium() {
		t.Skip("chromium not installed")
	}
	if chromium.err != nil {
		t.Fatalf("start chromium: %v", chromium.err)
	}
	shots := os.Getenv("KASHI_SCREENSHOTS")
	if shots == "" {
		shots = noShots
	}
	tctx, cancel := chromedp.NewContext(chromium.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("open a browser context: %v", err)
	}
	wctx, cancel := context.WithTimeout(tctx, limit)
	t.Cleanup(cancel)
	return &browser{ctx: wctx, url: url, shots: shots}
}

// css selects by CSS.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// shot saves a full-page screenshot as name, when the walk keeps its screenshots.
func (b *browser) shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if !b.keepsShots() {
			return nil
		}
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

// shotPage is a page a browser walk opens: a name for its screenshots, its path, and an
// element to wait for.
type shotPage struct{ name, path, wait string }

// shootPages opens each page in both languages at 1600 px and at a 390 px phone, takes a
// screenshot named prefix-page-lang-size.png, and fails a page that scrolls sideways.
func shootPages(t *testing.T, b *browser, url, prefix string, pages []shotPage) {
	t.Helper()
	for _, lang := range []string{"en", "zh-CN"} {
		if err := chromedp.Do(b.ctx, chromedp.Navigate(url+"/lang?set="+lang)); err != nil {
			t.Fatal(err)
		}
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1600, 900}, {"phone", 390, 844}} {
			for _, p := range pages {
				err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(url+p.path),
					chromedp.WaitVisible(css(p.wait)), chromedp.ScrollIntoView(css(p.wait)),
					b.shot(fmt.Sprintf("%s-%s-%s-%s.png", prefix, p.name, lang, size.name)))
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
