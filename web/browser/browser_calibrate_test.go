package browser_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserCalibrate walks the calibration in headless Chromium: an admin uploads a trace,
// watches the sweep finish, and proposes a setting, which becomes the pool's next version.
func TestBrowserCalibrate(t *testing.T) {
	t.Parallel()
	s := webtest.NewPoolServer(t)
	if _, err := s.Store.CreateUser(context.Background(), "ana", "pw-ana-long-enough", models.RoleAdmin, webtest.T0); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(trace, []byte(webtest.CalibrateTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)
	err := chromedp.Do(b.ctx,
		b.login("ana", "pw-ana-long-enough"),
		chromedp.Navigate(srv.URL+"/pools"),
		chromedp.Click(css(`[data-testid=calibrate-link]`)),
		chromedp.WaitVisible(css(`[data-testid=calibrate-form]`)),
		chromedp.Click(css(`input[name=source][value=upload]`)),
		chromedp.SetUploadFiles(css(`input[name=trace]`), []string{trace}),
		chromedp.SetValue(css(`#c-sweep`), "scale_up_mem=0.8,0.9;max_nodes=2,6"),
		chromedp.Submit(css(`[data-testid=calibrate-form]`)),
		chromedp.WaitVisible(css(`[data-testid=calibrate-table]`)),
		b.shot("calibrate-en.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=calibrate-row]').length`))
	if err != nil || rows != 4 {
		t.Fatalf("result rows = %d, %v; want 4", rows, err)
	}
	// The result's chart, with its axes' values and numbered points, in both languages on a
	// phone and at 1600 px; no page scrolls sideways.
	at, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "calibrate-result", []shotPage{{"chart", strings.TrimPrefix(at, srv.URL), `[data-testid=calibrate-chart]`}})
	for _, size := range []int64{1600, 390} {
		if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size, 900), chromedp.Navigate(at),
			chromedp.WaitVisible(css(`[data-testid=calibrate-chart]`))); err != nil {
			t.Fatal(err)
		}
		out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](labelsOutside(`[data-testid=calibrate-chart]`)))
		if err != nil || !strings.HasSuffix(out, "outside: ") || strings.HasPrefix(out, "0 ") {
			t.Errorf("%d px: the calibration chart's labels: %s (%v)", size, out, err)
		}
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate(srv.URL+"/lang?set=en"), chromedp.EmulateViewport(1280, 900), chromedp.Navigate(at),
		chromedp.WaitVisible(css(`[data-testid=calibrate-table]`))); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(b.ctx,
		chromedp.Click(css(`[data-testid=calibrate-row]:nth-child(4) [data-testid=calibrate-propose]`)),
		chromedp.WaitVisible(css(`[data-testid=pool-form]`)), // the pool's page, with its versions
		b.shot("calibrate-proposed.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	versions, _ := s.Store.PoolConfigVersions(context.Background(), "a100")
	if !strings.HasPrefix(versions[0].Note, "calibrate: scale_up_mem=0.9 max_nodes=6") {
		t.Errorf("latest version = %+v, want the proposed setting", versions[0])
	}
}
