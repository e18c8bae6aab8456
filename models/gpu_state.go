package models

import "time"

// GPU states: what the board's cards, the board's pool counts and GET /api/v1/gpus say of a
// card. GPUStatus decides them, nowhere else. api.GPUStates() is their wire form (models may
// not import api), and a test in the main package holds the two lists equal.
const (
	GPUFree  = "free"  // no task holds it
	GPUBusy  = "busy"  // held and in use
	GPUIdle  = "idle"  // held, utilization under the idle threshold
	GPUStale = "stale" // no reading for longer than the stale time: its readings are old
)

// GPUMarks are the times after which a card counts as stale, or stands out as long idle or
// long saturated.
type GPUMarks struct {
	StaleAfter     time.Duration
	IdleAfter      time.Duration
	SaturatedAfter time.Duration
}

// GPUStatus is a card's state at one moment and whether it stands out.
type GPUStatus struct {
	State string
	// LongIdle: held and idle longer than the idle mark.
	LongIdle bool
	// LongSaturated: memory or utilization at the saturation mark for longer than its mark.
	LongSaturated bool
}

// Status classifies the card at now. A stale card's readings are old, so it is neither free
// nor long idle nor saturated, whoever holds it.
func (g BoardGPU) Status(now time.Time, m GPUMarks) GPUStatus {
	if g.SampledAt == nil || now.Sub(*g.SampledAt) > m.StaleAfter {
		return GPUStatus{State: GPUStale}
	}
	var st GPUStatus
	switch {
	case g.TaskID == 0:
		st.State = GPUFree
	case g.IdleSince != nil:
		st.State = GPUIdle
		st.LongIdle = now.Sub(*g.IdleSince) > m.IdleAfter
	default:
		st.State = GPUBusy
	}
	st.LongSaturated = g.SaturatedSince != nil && now.Sub(*g.SaturatedSince) > m.SaturatedAfter
	return st
}
