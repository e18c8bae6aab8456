package board_test

import (
	"net/http"
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
// snapshot again.
func BenchmarkCompactBoardPage4096(b *testing.B) {
	s := webtest.NewServerOn(b, modelstest.SQLite(b, models.Options{BoardLag: time.Second}), webtest.TestCfg())
	webtest.SeedFleet(b, s.Store, 512, webtest.T0)
	if w := s.Get("/?view=grid"); w.Code != http.StatusOK || strings.Count(w.Body.String(), `data-testid="gpu-cell"`) != 4096 {
		b.Fatalf("GET /?view=grid = %d with %d cells", w.Code, strings.Count(w.Body.String(), `data-testid="gpu-cell"`))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if w := s.Get("/?view=grid", "HX-Request", "true"); w.Code != http.StatusOK {
			b.Fatalf("GET /?view=grid = %d", w.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/gpu")
}
