package board_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// BenchmarkCompactBoardPage4096 measures GET /?view=grid through the router for 512 nodes × 8
// GPUs seeded through the store: the board snapshot with the live view's readings, the
// hour's strips (cached between rollup runs), states, owners and the hand-written grid. The
// store has the server's board lag (a second), as `kashi serve` opens it: every token check
// writes (a no-op update of its last use), and without a lag each request would read the
// snapshot again. Every request is a new instant, so no render is shared.
func BenchmarkCompactBoardPage4096(b *testing.B) {
	s := webtest.NewServerOn(b, modelstest.SQLite(b, models.Options{BoardLag: time.Second}), webtest.TestCfg())
	webtest.SeedFleet(b, s.Store, 512, webtest.T0)
	if w := s.Get("/?view=grid"); w.Code != http.StatusOK || strings.Count(w.Body.String(), `data-testid="gpu-cell"`) != 4096 {
		b.Fatalf("GET /?view=grid = %d with %d cells", w.Code, strings.Count(w.Body.String(), `data-testid="gpu-cell"`))
	}
	b.ReportAllocs()
	b.ResetTimer()
	now := webtest.T0
	for b.Loop() {
		now = now.Add(time.Millisecond)
		s.SetNow(now)
		if w := s.Get("/?view=grid", "HX-Request", "true"); w.Code != http.StatusOK {
			b.Fatalf("GET /?view=grid = %d", w.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/gpu")
}

// BenchmarkBoard32768 measures the board of 4,096 nodes × 8 GPUs (eight pools of 512 nodes)
// as its viewers' browsers load it every five seconds (HTMX, gzip accepted), through the
// router, with the server's board lag and render sharing (2 s): "first" is a render no
// viewer shared (each request a new instant past the interval), "shared" a request served by
// the render of its view.
// Both views, the card board's first page and the grid's; p99-ms is the 99th percentile of
// the requests' times. With -short the fleet is 64 nodes (CI's smoke run).
func BenchmarkBoard32768(b *testing.B) {
	nodes := 4096
	if testing.Short() {
		nodes = 64
	}
	cfg := webtest.TestCfg()
	cfg.BoardShare = 2 * time.Second
	s := webtest.NewServerOn(b, modelstest.SQLite(b, models.Options{BoardLag: time.Second}), cfg)
	webtest.SeedFleet(b, s.Store, nodes, webtest.T0)
	poll := []string{"HX-Request", "true", "Accept-Encoding", "gzip"}
	for _, view := range []string{"cards", "grid"} {
		path := "/?view=" + view
		for _, mode := range []string{"first", "shared"} {
			b.Run(view+"/"+mode, func(b *testing.B) {
				now := webtest.T0.Add(time.Hour)
				s.SetNow(now)
				if w := s.Get(path, poll...); w.Code != http.StatusOK {
					b.Fatalf("GET %s = %d", path, w.Code)
				}
				var took []time.Duration
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if mode == "first" {
						now = now.Add(cfg.BoardShare)
						s.SetNow(now)
					}
					start := time.Now()
					if w := s.Get(path, poll...); w.Code != http.StatusOK {
						b.Fatalf("GET %s = %d", path, w.Code)
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}
