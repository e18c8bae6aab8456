package browser_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/views"
	"kashi/web"
	"kashi/web/webtest"
)

// TestBrowserBoardAtScale walks the board over time in headless Chromium: the compact grid of
// 4,096 GPUs seeded through the store renders every cell on one desktop screen, a cell opens
// its GPU's page with its charts, and an admin acknowledges a task's alerts; at 390×844 none
// of these pages scrolls sideways. Screenshots: desktop (the screen as seen) and phone.
func TestBrowserBoardAtScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := func() time.Time { return webtest.T0 }
	s := modelstest.SQLite(t, models.Options{BoardLag: time.Second})
	webtest.SeedFleet(t, s, 512, webtest.T0)
	if _, err := s.CreateUser(ctx, "ada", "pw-ada", models.RoleAdmin, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		in := models.AlertInput{Kind: models.AlertGPUMemory, Subject: "task 1 GPU " + strconv.Itoa(i), TaskID: 1, NodeID: 1,
			Pool: "a100", Severity: models.SeverityCritical, Code: "gpu_memory",
			Params: []string{"1", "train-0", "vision", "gpu-000", strconv.Itoa(i), "79000", "81920", "96", "95"}}
		if _, _, err := s.RaiseAlert(ctx, in, webtest.T0.Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: clock})
	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: 2 * time.Minute, IdleAfter: 30 * time.Minute,
		SaturatedAfter: 30 * time.Minute}, clock)
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()

	b := newBrowser(t, srv.URL, 3*time.Minute)
	wctx := b.ctx
	view := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if !b.keepsShots() {
				return nil
			}
			png, err := chromedp.CaptureScreenshot()(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(b.shots, name), png, 0o644)
		})
	}
	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(wctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return n
	}
	err := chromedp.Do(wctx,
		chromedp.EmulateViewport(1920, 1080),
		b.login("ada", "pw-ada"),
		chromedp.Navigate(srv.URL+"/?view=grid"),
		chromedp.WaitVisible(css(`[data-testid=compact-grid]`)),
		view("board-grid-desktop.png"),
	)
	if err != nil {
		t.Fatalf("compact board: %v (screenshots in %s)", err, b.shots)
	}
	if n := eval(`document.querySelectorAll('[data-testid=compact-grid] [data-testid=gpu-cell]').length`); n != 4096 {
		t.Errorf("cells = %d, want 4096", n)
	}
	// One desktop screen holds them all: the last cell's bottom is inside the 1080 px window.
	if bottom := eval(`Math.ceil([...document.querySelectorAll('[data-testid=gpu-cell]')].pop().getBoundingClientRect().bottom)`); bottom > 1080 {
		t.Errorf("the last cell ends at %d px, below the 1080 px screen", bottom)
	}
	// The strips come from the rollups: the fourth card of each node was busy, then idle.
	fourth, err := s.GPUByUUID(ctx, "GPU-gpu-000-3")
	if err != nil {
		t.Fatal(err)
	}
	page := views.GPUURL(fourth.ID)
	if got := eval(`document.querySelector('[href="` + page + `"] i').style.background.includes('gradient') ? 1 : 0`); got != 1 {
		t.Errorf("GPU-gpu-000-3 has no strip of two colours")
	}

	err = chromedp.Do(wctx,
		chromedp.Click(css(`[href="`+page+`"]`)),
		chromedp.WaitVisible(css(`[data-testid=history-chart] [data-testid=history-line]`)),
		view("gpu-page-desktop.png"),
	)
	if err != nil {
		t.Fatalf("GPU page: %v (screenshots in %s)", err, b.shots)
	}
	if n := eval(`[...document.querySelectorAll('[data-testid=history-line]')].filter(p => p.getTotalLength() > 20).length`); n != 4 {
		t.Errorf("drawn chart lines = %d, want 4", n)
	}

	err = chromedp.Do(wctx,
		chromedp.Navigate(srv.URL+"/alerts"),
		chromedp.WaitVisible(css(`[data-group=task-1] [data-testid=alert-ack]`)),
		chromedp.Click(css(`[data-group=task-1] [data-testid=alert-ack]`)),
		chromedp.WaitVisible(css(`[data-testid=notice]`)),
		view("alerts-acked-desktop.png"),
	)
	if err != nil {
		t.Fatalf("acknowledge: %v (screenshots in %s)", err, b.shots)
	}
	acked, err := chromedp.Run(wctx, chromedp.Text(css(`[data-group=task-1] [data-testid=alert-acked]`)))
	if err != nil || !strings.Contains(acked, "ada") {
		t.Errorf("acknowledged = %q, %v; want by ada", acked, err)
	}

	for _, path := range []string{"/?view=grid", page, "/nodes/1", "/alerts"} {
		name := "phone" + strings.NewReplacer("/", "-", "?", "-", "=", "-").Replace(path) + ".png"
		err := chromedp.Do(wctx,
			chromedp.EmulateViewport(390, 844),
			chromedp.Navigate(srv.URL+path),
			chromedp.WaitVisible(css(`main`)),
			b.shot(name),
		)
		if err != nil {
			t.Fatalf("phone %s: %v", path, err)
		}
		if w := eval(`document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("phone %s is %d px wide, want at most 390 (%s)", path, w, name)
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
