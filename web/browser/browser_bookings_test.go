package browser_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserBookings shows, in both languages at desktop and phone sizes, a reservation in
// its window: the board's booked cards (card view and grid) and its pool summary's count, the queue's free
// capacity with the booked cards, the pools chart's band and list, the bill's unused
// booked hours, the pool form's rule and the request form's repeat; no page scrolls sideways on the phone.
func TestBrowserBookings(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	ctx := context.Background()
	cfg := webtest.A100Config()
	cfg.UnusedBookingPct = new(50)
	if _, err := s.Store.SavePoolConfig(ctx, "a100", cfg, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	s.Projects("vision", "nlp")
	n := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	opens, closes := webtest.T0.Add(24*time.Hour), webtest.T0.Add(33*time.Hour)
	s.Book(t, 4, opens, closes)
	tk := s.Create(webtest.Task("peak").Spec("A100-80G").Ready().GPUs(3), opens)
	s.Place(tk, opens, n.UUIDs[:3]...)
	now := opens.Add(2 * time.Hour)
	s.SetNow(now)
	var ss []api.Sample
	for i, u := range n.UUIDs {
		ss = append(ss, webtest.Sample(u, now, 80*min(1, 3-min(i, 3)), 30000))
	}
	s.PostSamples(n.Token, ss...)

	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 180*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	pages := []shotPage{
		{"board", "/", `[data-testid=pool-booked]`},
		{"queue", "/queue", `[data-testid=capacity-booked]`},
		{"grid", "/?view=grid", `[data-testid=legend-state][data-state=booked]`},
		{"pools", "/pools?range=6h", `[data-testid=pool-bookings]`},
		{"bill", "/bills/vision/2026-03", `[data-testid=bookings]`},
		{"pool-form", "/pools/a100/edit", `[name=unused_booking_pct]`},
		{"request-form", "/projects#request-vision", `[data-testid=reserve-repeat]`},
	}
	shootPages(t, b, srv.URL, "bookings", pages)
}
