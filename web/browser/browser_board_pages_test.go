package browser_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// TestBrowserBoardPages opens a board too large for one page in both languages, on a desktop
// and a 390 px phone: the bare URL opens the compact grid, its pages are named by their
// pools, the cards view pages by 1,024, and no page scrolls sideways. When screenshots are
// kept (KASHI_SCREENSHOTS) the fleet is issue #37's, 4,096 nodes × 8 = 32,768 GPUs in eight
// pools (seeding it takes minutes); otherwise 160 nodes (1,280 cards), enough for two pages
// of cards.
func TestBrowserBoardPages(t *testing.T) {
	t.Parallel()
	nodes, gridPages, limit := 160, 1, 3*time.Minute
	if os.Getenv("KASHI_SCREENSHOTS") != "" {
		// Full-page shots of 1,024 cards on a phone take minutes on a loaded machine.
		nodes, gridPages, limit = 4096, 8, 20*time.Minute
	}
	ctx := context.Background()
	clock := func() time.Time { return webtest.T0 }
	s := modelstest.SQLite(t, models.Options{BoardLag: time.Second})
	webtest.SeedFleet(t, s, nodes, webtest.T0)
	if _, err := s.CreateUser(ctx, "ada", "pw-ada", models.RoleAdmin, webtest.T0); err != nil {
		t.Fatal(err)
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: clock})
	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: 2 * time.Minute, IdleAfter: 30 * time.Minute,
		SaturatedAfter: 30 * time.Minute, BoardShare: 2 * time.Second}, clock)
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()

	b := newBrowser(t, srv.URL, limit)
	if err := chromedp.Do(b.ctx, b.login("ada", "pw-ada")); err != nil {
		t.Fatal(err)
	}
	pages := []shotPage{{"grid", "/", `[data-testid=compact-grid]`}, {"cards-page-2", "/?view=cards&page=2", `[data-testid=board-pages]`}}
	shootPages(t, b, srv.URL, "board-pages", pages)
	if err := chromedp.Do(b.ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid=compact-grid]`))); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=board-page]').length`))
	if err != nil {
		t.Fatal(err)
	}
	if want := gridPages; (want > 1 && n != want) || (want == 1 && n != 0) {
		t.Errorf("the grid of %d nodes has %d page links, want %d", nodes, n, want)
	}
}
