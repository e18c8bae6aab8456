package serving

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// window is the 5-minute TTFT and e2e of the Qwen service: replica a ran through it
// (vllm-a-0 → vllm-a-1), replica b restarted inside it (vllm-b-0 → vllm-b-1).
func window(t *testing.T) (a, b, merged Snapshot) {
	t.Helper()
	a = Delta(page(t, "vllm-a-0.txt")[0], page(t, "vllm-a-1.txt")[0])
	b = Delta(page(t, "vllm-b-0.txt")[0], page(t, "vllm-b-1.txt")[0])
	return a, b, Merge(a, b)
}

func TestDeltaAcrossRestart(t *testing.T) {
	prevB, curB := page(t, "vllm-b-0.txt")[0], page(t, "vllm-b-1.txt")[0]
	if !Restarted(prevB, curB) {
		t.Fatalf("Restarted(b-0, b-1) = false; b-1 counts 400 requests after b-0's 20000")
	}
	a, b, _ := window(t)
	// a: 9600-9000 requests, 4404706-4123456 prompt tokens; b: its whole page after the restart.
	got := [][3]float64{{a.Requests, a.PromptTokens, float64(a.TTFT.Count())}, {b.Requests, b.PromptTokens, float64(b.TTFT.Count())}}
	want := [][3]float64{{600, 281250, 600}, {400, 187500, 400}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Delta requests, prompt tokens, TTFT count (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(curB, b); diff != "" {
		t.Errorf("Delta across a restart is not cur (-want +got):\n%s", diff)
	}
	if math.Abs(a.TTFT.Sum-66.25) > 1e-9 {
		t.Errorf("Delta TTFT sum = %v, want 66.25", a.TTFT.Sum)
	}
}

// TestMergedTTFT checks the merged replicas' TTFT percentiles against figures worked by hand.
// Per-bucket TTFT counts in the window (upper bound: a + b):
//
//	≤0.06: 60+20=80   ≤0.08: 240+100=340   ≤0.1: 180+120=300   ≤0.25: 90+120=210
//	≤0.5: 24+30=54    ≤0.75: 6+6=12        ≤1.0: 0+4=4          total 1000
//
// Cumulative: 80, 420, 720, 930, 984, 996, 1000.
//
//	p50: rank 500 lies in (0.08, 0.1], 80 past 420 of its 300: 0.08 + 0.02·80/300 = 0.0853333 s
//	p95: rank 950 lies in (0.25, 0.5], 20 past 930 of its 54:  0.25 + 0.25·20/54 = 0.3425926 s
//	p99: rank 990 lies in (0.5, 0.75], 6 past 984 of its 12:   0.5 + 0.25·6/12   = 0.625 s
//
// Averaging the replicas' own p95s instead would give (0.25 + 0.4166667)/2 = 0.3333333 s.
func TestMergedTTFT(t *testing.T) {
	a, b, m := window(t)
	pa, _ := a.TTFT.Quantile(0.95)
	pb, _ := b.TTFT.Quantile(0.95)
	if math.Abs(pa-0.25) > 1e-9 || math.Abs(pb-(0.25+0.25*20/30)) > 1e-9 {
		t.Errorf("replicas' TTFT p95 = %v, %v; want 0.25, 0.4166667", pa, pb)
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 0.0853333}, {0.95, 0.3425926}, {0.99, 0.625}} {
		got, ok := m.TTFT.Quantile(c.q)
		if !ok || math.Abs(got-c.want) > 1e-6 {
			t.Errorf("merged TTFT Quantile(%v) = %v, %v; want %v", c.q, got, ok, c.want)
		}
	}
	if m.Requests != 1000 || m.GenerationTokens != 157300+104800 || m.TTFT.Narrowed {
		t.Errorf("Merge = %v requests, %v generated, narrowed %v; want 1000, 262100, false", m.Requests, m.GenerationTokens, m.TTFT.Narrowed)
	}
	// e2e: per bucket ≤1.0: 40, ≤1.5: 140, ≤2.0: 290, ≤2.5: 260, ≤5.0: 210, ≤10: 54, ≤15: 6;
	// cumulative 40, 180, 470, 730, 940, 994, 1000; p95 rank 950 in (5, 10], 10 of 54: 5 + 5·10/54.
	if got, _ := m.E2E.Quantile(0.95); math.Abs(got-(5+50.0/54)) > 1e-9 {
		t.Errorf("merged e2e Quantile(0.95) = %v, want %v", got, 5+50.0/54)
	}
}

func TestMergeNarrowsDifferingBounds(t *testing.T) {
	inf := math.Inf(1)
	a := &Histogram{Bounds: []float64{0.1, 0.25, 0.5, inf}, Counts: []uint64{10, 30, 40, 40}, Sum: 9}
	b := &Histogram{Bounds: []float64{0.1, 0.2, 0.5, 1, inf}, Counts: []uint64{5, 15, 18, 20, 20}, Sum: 5}
	got := Merge(Snapshot{TTFT: a}, Snapshot{TTFT: b}).TTFT
	want := &Histogram{Bounds: []float64{0.1, 0.5, inf}, Counts: []uint64{15, 58, 60}, Sum: 14, Narrowed: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge of differing bounds (-want +got):\n%s", diff)
	}
	if a.Narrowed || len(a.Bounds) != 4 {
		t.Errorf("Merge changed its argument: %+v", a)
	}
}

// TestQuantileEdges follows histogram_quantile's rules at the edges.
func TestQuantileEdges(t *testing.T) {
	inf := math.Inf(1)
	h := &Histogram{Bounds: []float64{1, 2, inf}, Counts: []uint64{4, 8, 10}}
	tests := map[string]struct {
		h      *Histogram
		q      float64
		want   float64
		wantOK bool
	}{
		"first bucket starts at 0":          {h, 0.2, 0.5, true},
		"rank in +Inf gives the last bound": {h, 0.95, 2, true},
		"q=1":                               {h, 1, 2, true},
		"q=0":                               {h, 0, 0, true},
		"q out of range":                    {h, 1.5, 0, false},
		"q NaN":                             {h, math.NaN(), 0, false},
		"no observations":                   {&Histogram{Bounds: []float64{1, inf}, Counts: []uint64{0, 0}}, 0.5, 0, false},
		"only +Inf":                         {&Histogram{Bounds: []float64{inf}, Counts: []uint64{3}}, 0.5, 0, false},
		"nil":                               {nil, 0.5, 0, false},
		"non-positive first bound":          {&Histogram{Bounds: []float64{-1, 1, inf}, Counts: []uint64{2, 4, 4}}, 0.25, -1, true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := tt.h.Quantile(tt.q)
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Quantile(%v) = %v, %v; want %v, %v", tt.q, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestRestartedByShape(t *testing.T) {
	inf := math.Inf(1)
	h := func(bounds []float64, counts ...uint64) *Histogram { return &Histogram{Bounds: bounds, Counts: counts} }
	prev := Snapshot{Requests: 10, TTFT: h([]float64{1, inf}, 4, 10)}
	tests := map[string]struct {
		cur  Snapshot
		want bool
	}{
		"grew":                 {Snapshot{Requests: 12, TTFT: h([]float64{1, inf}, 5, 12)}, false},
		"counter went down":    {Snapshot{Requests: 9, TTFT: h([]float64{1, inf}, 5, 12)}, true},
		"one bucket went down": {Snapshot{Requests: 12, TTFT: h([]float64{1, inf}, 3, 12)}, true},
		"bounds changed":       {Snapshot{Requests: 12, TTFT: h([]float64{2, inf}, 5, 12)}, true},
		"histogram vanished":   {Snapshot{Requests: 12}, true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Restarted(prev, tt.cur); got != tt.want {
				t.Errorf("Restarted = %v, want %v", got, tt.want)
			}
		})
	}
}
