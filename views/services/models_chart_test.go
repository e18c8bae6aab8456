package services

import (
	"strconv"
	"testing"
	"time"
)

// TestLayoutTrend: a gap splits the line; the y axis starts at zero and reaches the
// largest value in round steps; every known point has a dot titled with its value.
func TestLayoutTrend(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	v := func(n int64) *int64 { return &n }
	at := []time.Time{t0, t0.Add(time.Hour), t0.Add(2 * time.Hour), t0.Add(3 * time.Hour)}
	fmtN := func(n int64) string { return strconv.FormatInt(n, 10) }
	c := layoutTrend(at, []*int64{v(300), v(450), nil, v(120)}, fmtN, func(n int64) string { return fmtN(n) + " ms" })
	if c.Empty || len(c.Lines) != 2 || len(c.Dots) != 3 || c.Dots[1].Title != "03-02 10:00 · 450 ms" {
		t.Errorf("layoutTrend = %+v; want two runs of line, three dots, the second 450 ms at 10:00", c)
	}
	if first, last := c.YTicks[0], c.YTicks[len(c.YTicks)-1]; first.Label != "0" || last.Label != "600" {
		t.Errorf("y ticks = %+v, want 0 to 600 in steps of 200", c.YTicks)
	}
	if e := layoutTrend(at[:1], []*int64{nil}, fmtN, fmtN); !e.Empty || len(e.Dots) != 0 {
		t.Errorf("no known point: %+v, want an empty chart", e)
	}
}
