package billing

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// rollup is a 5-minute bucket at minute m (from 0) with n readings, a active and i idle.
func rollup(gpu, m, n, a, i int64) models.GPURollup {
	return models.GPURollup{GPUID: gpu, Resolution: models.Rollup5m, Bucket: m * 60, N: n, NActive: a, NIdle: i}
}

func TestClassify(t *testing.T) {
	all := Span{0, 1 << 40}
	tests := map[string]struct {
		held, window Span
		rollups      []models.GPURollup
		want         Breakdown
	}{
		"no readings": {Span{0, 600}, all, nil, Breakdown{NoData: 600}},
		"setup until first active bucket": {Span{60, 900}, all,
			[]models.GPURollup{rollup(1, 0, 30, 0, 30), rollup(1, 5, 30, 0, 0), rollup(1, 10, 30, 30, 0)},
			Breakdown{Setup: 540, Active: 300}},
		"active bucket holding the start has no setup": {Span{100, 300}, all,
			[]models.GPURollup{rollup(1, 0, 30, 15, 15)}, Breakdown{Active: 100, Idle: 100}},
		"never active has no setup": {Span{0, 600}, all,
			[]models.GPURollup{rollup(1, 0, 30, 0, 30), rollup(1, 5, 30, 0, 10)},
			Breakdown{Idle: 300 + 100, LowUtil: 200}},
		"gap is no data": {Span{0, 900}, all,
			[]models.GPURollup{rollup(1, 0, 30, 30, 0), rollup(1, 10, 30, 30, 0)},
			Breakdown{Active: 600, NoData: 300}},
		"empty bucket is no data": {Span{0, 600}, all,
			[]models.GPURollup{rollup(1, 0, 30, 30, 0), rollup(1, 5, 0, 0, 0)},
			Breakdown{Active: 300, NoData: 300}},
		"largest remainder": {Span{0, 100}, all,
			[]models.GPURollup{rollup(1, 0, 3, 1, 1)}, Breakdown{Active: 34, LowUtil: 33, Idle: 33}},
		"window cuts setup": {Span{0, 1200}, Span{0, 400},
			[]models.GPURollup{rollup(1, 10, 30, 30, 0)}, Breakdown{Setup: 400}},
		"window after setup": {Span{0, 1200}, Span{700, 1200},
			[]models.GPURollup{rollup(1, 10, 30, 30, 0), rollup(1, 15, 30, 10, 20)},
			Breakdown{Active: 200 + 100, Idle: 200}},
		"setup found before the window": {Span{0, 1200}, Span{900, 1200},
			[]models.GPURollup{rollup(1, 5, 30, 30, 0)}, Breakdown{NoData: 300}},
		"outside window": {Span{0, 100}, Span{100, 200}, nil, Breakdown{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Classify(tc.held, tc.window, tc.rollups)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Classify(%v, %v) (-want +got):\n%s", tc.held, tc.window, diff)
			}
			if got.Nominal() != tc.held.Clip(tc.window).Seconds() {
				t.Errorf("Nominal = %d, want %d", got.Nominal(), tc.held.Clip(tc.window).Seconds())
			}
		})
	}
}

// TestSpanSetWasted: the wasted seconds of a set of spans, however many repeat, equal those
// of the spans one by one.
func TestSpanSetWasted(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	win := Span{1000, 5000}
	for round := 0; round < 200; round++ {
		var s spanSet
		var spans []Span
		for k := r.IntN(12); k >= 0; k-- {
			sp := Span{r.Int64N(6000), 0}
			sp.End = sp.Start + r.Int64N(3000)
			if k%3 == 0 && len(spans) > 0 { // repeats, as a task's cards mostly share a span
				sp = spans[r.IntN(len(spans))]
			}
			spans = append(spans, sp)
			s.add(sp)
		}
		task := &models.LedgerTask{Ending: models.EndFailed, CheckpointAt: r.Int64N(6000)}
		var want int64
		for _, sp := range spans {
			want += Wasted(sp, win, task)
		}
		if got := s.wasted(win, task); got != want {
			t.Fatalf("round %d: wasted of %v = %d, want %d", round, spans, got, want)
		}
	}
}
