package serving

import "time"

// Scrapes are one replica's two pages of one model: at the start and at the end of a window.
// A replica that started inside the window has a zero Prev: all it counted is in the window.
type Scrapes struct {
	Prev, Cur Snapshot
}

// Rollup is what one service's model served over a window (normally 5 minutes), all its
// replicas together. A percentile is nil when it cannot be known: no request in the window,
// or a server that does not expose it (TGI's TTFT).
type Rollup struct {
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

// RollUp adds up the replicas' deltas over the window (Delta, then Merge) and reads the
// percentiles from the merged buckets.
func RollUp(start, end time.Time, replicas ...Scrapes) Rollup {
	deltas := make([]Snapshot, 0, len(replicas))
	r := Rollup{Start: start, End: end}
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

func quantile(h *Histogram, q float64) *float64 {
	v, ok := h.Quantile(q)
	if !ok {
		return nil
	}
	return &v
}
