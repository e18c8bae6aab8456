package serving

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)

// TestRollUp rolls up the Qwen service's window (TestMergedTTFT's hand-worked figures) and a
// TGI window, where TTFT is not exposed.
func TestRollUp(t *testing.T) {
	a := Scrapes{page(t, "vllm-a-0.txt")[0], page(t, "vllm-a-1.txt")[0]}
	b := Scrapes{page(t, "vllm-b-0.txt")[0], page(t, "vllm-b-1.txt")[0]}
	r := RollUp(t0, t0.Add(5*time.Minute), a, b)
	if r.Model != "Qwen/Qwen2.5-7B-Instruct" || r.Requests != 1000 || r.PromptTokens != 281250+187500 ||
		r.GenerationTokens != 157300+104800 || r.Restarts != 1 || r.Narrowed {
		t.Errorf("RollUp = %+v; want Qwen, 1000 requests, 468750 in, 262100 out, 1 restart", r)
	}
	for name, c := range map[string]struct {
		got  *float64
		want float64
	}{"TTFT p50": {r.TTFTP50, 0.08 + 0.02*80/300}, "TTFT p95": {r.TTFTP95, 0.25 + 0.25*20/54}, "TTFT p99": {r.TTFTP99, 0.625}, "e2e p95": {r.E2EP95, 5 + 5*10.0/54}} {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9 {
			t.Errorf("RollUp %s = %v, want %v", name, c.got, c.want)
		}
	}

	// A TGI replica that appeared inside the window: its whole page is the window's.
	tgi := RollUp(t0, t0.Add(5*time.Minute), Scrapes{Cur: page(t, "tgi.txt")[0]})
	if tgi.Requests != 1284 || tgi.TTFTP95 != nil || tgi.E2EP95 == nil || tgi.Restarts != 0 {
		t.Errorf("RollUp(tgi) = %+v; want 1284 requests, no TTFT, an e2e p95, no restart", tgi)
	}

	// The same page twice: nothing happened, so no percentile.
	idle := RollUp(t0, t0.Add(5*time.Minute), Scrapes{a.Cur, a.Cur})
	if idle.Requests != 0 || idle.TTFTP95 != nil || idle.E2EP95 != nil {
		t.Errorf("RollUp(idle) = %+v; want 0 requests and no percentiles", idle)
	}
}
