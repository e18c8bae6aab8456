package serving

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// NewHistogram builds a histogram from its finite bucket bounds (ascending) and cumulative
// counts, one more than the bounds: the last count is the +Inf bucket's. It refuses what a
// server could not have exposed: bounds not ascending, counts going down, a sum not finite.
func NewHistogram(bounds []float64, counts []uint64, sum float64) (*Histogram, error) {
	if len(counts) != len(bounds)+1 {
		return nil, fmt.Errorf("serving: histogram of %d bounds has %d counts, want %d", len(bounds), len(counts), len(bounds)+1)
	}
	h := &Histogram{Bounds: append(slices.Clone(bounds), math.Inf(1)), Counts: slices.Clone(counts), Sum: sum}
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("serving: histogram: %w", err)
	}
	return h, nil
}

// Finite is h's bounds without the last, +Inf: what NewHistogram takes back.
func (h *Histogram) Finite() []float64 { return h.Bounds[:len(h.Bounds)-1] }

// histogramJSON is a Histogram as JSON writes it: JSON has no +Inf, so the bounds are the
// finite ones and the counts one more.
type histogramJSON struct {
	Bounds   []float64 `json:"bounds"`
	Counts   []uint64  `json:"counts"`
	Sum      float64   `json:"sum"`
	Narrowed bool      `json:"narrowed,omitempty"`
}

// MarshalJSON writes h as {"bounds": finite bounds, "counts": cumulative counts, "sum"}.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	return json.Marshal(histogramJSON{Bounds: h.Finite(), Counts: h.Counts, Sum: h.Sum, Narrowed: h.Narrowed})
}

// UnmarshalJSON reads what MarshalJSON wrote, checked as NewHistogram checks it.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	n, err := NewHistogram(j.Bounds, j.Counts, j.Sum)
	if err != nil {
		return err
	}
	*h = *n
	h.Narrowed = j.Narrowed
	return nil
}
