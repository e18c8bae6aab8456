package replay

import (
	"encoding/json"
	"slices"

	"kashi/billing"
)

// Result is the outcome of one replay, written as JSON by kashi replay --out.
type Result struct {
	Policy string `json:"policy"`
	// Jobs counts the jobs replayed; Skipped the rows left out, by cause.
	Jobs    int            `json:"jobs"`
	Skipped map[string]int `json:"skipped"`
	// TotalGPUHours sums GPUs asked × duration; GPUHoursByGroup splits it by group.
	TotalGPUHours   Hours            `json:"total_gpu_hours"`
	GPUHoursByGroup map[string]Hours `json:"gpu_hours_by_group"`
	// GPUHoursByStage splits it by the trace's stage column, when it has one.
	GPUHoursByStage map[string]Hours `json:"gpu_hours_by_stage,omitempty"`
	// WaitS is start − submit over the jobs, in seconds.
	WaitS WaitStats `json:"wait_s"`
	// PeakGPUsInUse is the most cards held at once (a job taking whole nodes holds them
	// whole under fifo).
	PeakGPUsInUse int `json:"peak_gpus_in_use"`
	// MakespanS is from the first submit to the last end.
	MakespanS int64 `json:"makespan_s"`
	// NodeHours counts machine time from the request to a machine until its removal (or
	// the makespan's end), booting included; IdleGPUHours is those machines' cards × time
	// less TotalGPUHours.
	NodeHours    Hours `json:"node_hours"`
	IdleGPUHours Hours `json:"idle_gpu_hours"`
	// ScaleEvents are the scaling actions taken, in order.
	ScaleEvents []ScaleEvent `json:"scale_events"`
	Cost        Cost         `json:"cost"`
	// ETA scores the queue's estimates of start (kashi policy): each job that waited, its
	// first estimate against its actual start.
	ETA ETAScore `json:"eta"`

	jobs  []Job
	runs  []jobRun
	nodes []NodeSpan
}

// Hours is a count of seconds written as hours with six decimals (8085.460556), exactly as
// bills write them.
type Hours int64

// MarshalJSON writes the hours as a JSON number.
func (h Hours) MarshalJSON() ([]byte, error) { return billing.AppendHours(nil, int64(h)), nil }

// String is the hours with six decimals.
func (h Hours) String() string { return billing.FormatHours(int64(h)) }

// WaitStats summarises waits in seconds; percentiles interpolate linearly at p·(n−1) of
// the sorted waits.
type WaitStats struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Max  int64   `json:"max"`
}

// waitStats computes the summary; it sorts waits.
func waitStats(waits []int64) WaitStats {
	if len(waits) == 0 {
		return WaitStats{}
	}
	slices.Sort(waits)
	var sum float64
	for _, w := range waits {
		sum += float64(w)
	}
	return WaitStats{Mean: sum / float64(len(waits)), P50: percentile(waits, 0.5), P95: percentile(waits, 0.95),
		Max: waits[len(waits)-1]}
}

// percentile is the p-th percentile of sorted xs by linear interpolation at p·(n−1).
func percentile(xs []int64, p float64) float64 {
	pos := p * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return float64(xs[len(xs)-1])
	}
	frac := pos - float64(i)
	return float64(xs[i]) + frac*float64(xs[i+1]-xs[i])
}

// ScaleEvent is one scaling action of the replay.
type ScaleEvent struct {
	// AtS is the time on the trace's clock.
	AtS    int64  `json:"at_s"`
	Pool   string `json:"pool"`
	Kind   string `json:"kind"`
	Count  int    `json:"count,omitempty"`
	NodeID int64  `json:"node_id,omitempty"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"`
}

// Cost is what the provisioned machines cost: per pool, its cards × machine time at its
// rate, rounded once (billing.Amount); the total is the sum of the rounded pool amounts.
type Cost struct {
	TotalFen int64      `json:"total_fen"`
	Pools    []PoolCost `json:"pools"`
}

// PoolCost is one pool's share of Cost.
type PoolCost struct {
	Pool     string `json:"pool"`
	GPUHours Hours  `json:"gpu_hours"`
	RateFen  int64  `json:"rate_fen"`
	Fen      int64  `json:"fen"`
}

// JSON is the result as indented JSON with a final newline; the same result gives the same
// bytes (map keys are sorted, numbers are written exactly).
func (r *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
