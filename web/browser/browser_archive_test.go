package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestBrowserArchiveOnAPhone: the archive page, with a failing upload of a long key and a
// long error, fits the window at 390 and at 1600 px in both languages, every row whole on
// the screen.
func TestBrowserArchiveOnAPhone(t *testing.T) {
	t.Parallel()
	cfg := webtest.TestCfg()
	cfg.Archive = "s3://kashi-archive/production/records"
	s := webtest.NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	ctx := context.Background()
	now := webtest.T0
	key := "templates/2026/03/computer-vision-research-pretrain-resnet-imagenet-v12-1234.json"
	if _, err := s.Store.EnqueueArchive(ctx, []models.ArchiveUpload{
		{Kind: models.ArchiveTemplates, Key: key, SourceID: 1, SourceAt: now, Body: []byte("{}")},
		{Kind: models.ArchiveBills, Key: "bills/2026/03/alpha-2026-03-b1.json", SourceID: 1, SourceAt: now, Body: []byte("{}")},
	}, now); err != nil {
		t.Fatal(err)
	}
	due, err := s.Store.ArchiveDue(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	why := `archive: look at production/records/` + key + `: Head "https://zos.example.ctyun.cn/kashi-archive/production/records/` + key + `": dial tcp 10.0.0.1:443: connect: connection refused`
	if err := s.Store.ArchiveFailed(ctx, due[0].ID, why, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 2*time.Minute)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, width := range []int64{1600, 390} {
			err := chromedp.Do(b.ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+"/archive"), chromedp.WaitVisible(css(`main`)),
				b.shot(fmt.Sprintf("archive-%s-%d.png", lang, width)))
			if err != nil {
				t.Fatalf("%s %d: %v", lang, width, err)
			}
			got, err := chromedp.Run(b.ctx, lookAt(`[data-testid=archive-row]`, ""))
			if err != nil {
				t.Fatal(err)
			}
			if got.Width > got.Window || got.Count != 2 || got.Inside != 2 {
				t.Errorf("%s at %d px: page %d px wide in a %d px window, %d of %d rows whole on the screen; want it to fit",
					lang, width, got.Width, got.Window, got.Inside, got.Count)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
