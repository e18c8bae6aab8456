package pools_test

import (
	"strings"
	"testing"
	"time"

	"kashi/web/webtest"
)

// TestPoolsChartShowsBookings: the pools chart draws booked capacity as a band over the
// windows in its range, and the pool lists the reservations of its spec not over yet with
// the nodes they need and where they stand.
func TestPoolsChartShowsBookings(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.Projects("vision")
	opens, closes := webtest.T0.Add(24*time.Hour), webtest.T0.Add(33*time.Hour)
	s.Book(t, 12, opens, closes)

	s.SetNow(opens.Add(-time.Hour)) // ahead: listed, no band in the last 6 hours
	doc := webtest.Parse(t, s.Get("/pools?range=6h").Body.String())
	pool := doc.Find(`[data-testid=pool][data-pool=a100]`)
	if n := pool.Find(`[data-testid=chart-booked]`).Length(); n != 0 {
		t.Errorf("before the window the chart has %d booked bands", n)
	}
	row := pool.Find(`[data-testid=pool-booking][data-project=vision]`)
	if row.AttrOr("data-state", "") != "ahead" || !strings.Contains(row.Text(), "12 cards (nodes: 2)") {
		t.Errorf("the booking row = %q (%s), want 12 cards (nodes: 2), ahead", row.Text(), row.AttrOr("data-state", ""))
	}

	s.SetNow(opens.Add(3 * time.Hour))
	pool = webtest.Parse(t, s.Get("/pools?range=6h").Body.String()).Find(`[data-testid=pool][data-pool=a100]`)
	band := pool.Find(`[data-testid=chart-booked]`).AttrOr("d", "")
	// From 09:00, half of the 6 hours, up to 12 cards = 1.5 nodes; the y axis reads 0–6.
	if !strings.HasPrefix(band, "M376 186H708V") {
		t.Errorf("the booked band = %q, want it from the middle of the range to now", band)
	}
	if st := pool.Find(`[data-testid=pool-booking]`).AttrOr("data-state", ""); st != "open" {
		t.Errorf("in the window the booking is %q, want open", st)
	}
	if !strings.Contains(pool.Find(`figcaption`).Text(), "Booked") {
		t.Errorf("the legend does not name the band: %q", pool.Find(`figcaption`).Text())
	}
}
