package serving

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)

// scrapes are one replica's two pages of one model: at the start and at the end of a window.
// A replica that started inside the window has a zero Prev: all it counted is in the window.
type scrapes struct {
	Prev, Cur Snapshot
}

// rollup is what one service's model served over a window (normally 5 minutes), all its
// replicas together. A percentile is nil when it cannot be known: no request in the window,
// or a server that does not expose it (TGI's TTFT).
type rollup struct {
	Server           Server
	Model            string
	Start, End       time.Time
	Requests         float64
	PromptTokens     float64
	GenerationTokens float64
	TTFTP50          *float64
	TTFTP95          *float64
	TTFTP99          *float64
	E2EP95           *float64
	// Restarts counts the replicas whose server restarted inside the window (their whole
	// later page was counted); Narrowed says replicas' buckets differed and only the bounds
	// they share were used.
	Restarts int
	Narrowed bool
}

// rollUp adds up the replicas' deltas over the window (Delta, then Merge) and reads the
// percentiles from the merged buckets: what the agent, the store and the pages do between
// them, in one call.
func rollUp(start, end time.Time, replicas ...scrapes) rollup {
	deltas := make([]Snapshot, 0, len(replicas))
	r := rollup{Start: start, End: end}
	for _, s := range replicas {
		if Restarted(s.Prev, s.Cur) {
			r.Restarts++
		}
		deltas = append(deltas, Delta(s.Prev, s.Cur))
	}
	m := Merge(deltas...)
	r.Server, r.Model = m.Server, m.Model
	r.Requests, r.PromptTokens, r.GenerationTokens = m.Requests, m.PromptTokens, m.GenerationTokens
	r.TTFTP50, r.TTFTP95, r.TTFTP99 = quantile(m.TTFT, 0.5), quantile(m.TTFT, 0.95), quantile(m.TTFT, 0.99)
	r.E2EP95 = quantile(m.E2E, 0.95)
	r.Narrowed = m.TTFT != nil && m.TTFT.Narrowed || m.E2E != nil && m.E2E.Narrowed
	return r
}

// quantile is h's q-quantile, nil when it cannot be known.
func quantile(h *Histogram, q float64) *float64 {
	v, ok := h.Quantile(q)
	if !ok {
		return nil
	}
	return &v
}

// TestRollUp rolls up the Qwen service's window (TestMergedTTFT's hand-worked figures) and a
// TGI window, where TTFT is not exposed.
func TestRollUp(t *testing.T) {
	a := scrapes{page(t, "vllm-a-0.txt")[0], page(t, "vllm-a-1.txt")[0]}
	b := scrapes{page(t, "vllm-b-0.txt")[0], page(t, "vllm-b-1.txt")[0]}
	r := rollUp(t0, t0.Add(5*time.Minute), a, b)
	if r.Model != "Qwen/Qwen2.5-7B-Instruct" || r.Requests != 1000 || r.PromptTokens != 281250+187500 ||
		r.GenerationTokens != 157300+104800 || r.Restarts != 1 || r.Narrowed {
		t.Errorf("rollUp = %+v; want Qwen, 1000 requests, 468750 in, 262100 out, 1 restart", r)
	}
	for name, c := range map[string]struct {
		got  *float64
		want float64
	}{"TTFT p50": {r.TTFTP50, 0.08 + 0.02*80/300}, "TTFT p95": {r.TTFTP95, 0.25 + 0.25*20/54}, "TTFT p99": {r.TTFTP99, 0.625}, "e2e p95": {r.E2EP95, 5 + 5*10.0/54}} {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9 {
			t.Errorf("rollUp %s = %v, want %v", name, c.got, c.want)
		}
	}

	// A TGI replica that appeared inside the window: its whole page is the window's.
	tgi := rollUp(t0, t0.Add(5*time.Minute), scrapes{Cur: page(t, "tgi.txt")[0]})
	if tgi.Requests != 1284 || tgi.TTFTP95 != nil || tgi.E2EP95 == nil || tgi.Restarts != 0 {
		t.Errorf("rollUp(tgi) = %+v; want 1284 requests, no TTFT, an e2e p95, no restart", tgi)
	}

	// The same page twice: nothing happened, so no percentile.
	idle := rollUp(t0, t0.Add(5*time.Minute), scrapes{a.Cur, a.Cur})
	if idle.Requests != 0 || idle.TTFTP95 != nil || idle.E2EP95 != nil {
		t.Errorf("rollUp(idle) = %+v; want 0 requests and no percentiles", idle)
	}
}
