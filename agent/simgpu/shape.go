package simgpu

import (
	"math/rand/v2"
	"time"
)

// Shape is a simulated task's usage pattern over its run.
type Shape string

// The shapes a kashi-sim command may ask for.
const (
	// Train loads data first, trains at high utilization, then checkpoints.
	Train Shape = "train"
	// Finetune is like Train with a shorter setup and a little less memory.
	Finetune Shape = "finetune"
	// Eval runs in bursts of middling utilization.
	Eval Shape = "eval"
	// IdleHolder holds memory but barely computes: a card held and unused.
	IdleHolder Shape = "idle-holder"
	// MemHeavy is like Train with memory near the limit.
	MemHeavy Shape = "mem-heavy"
	// Serve is an inference server: its model and KV cache hold most of the memory from a
	// short load on, and utilization follows the requests (see ServiceCommand).
	Serve Shape = "serve"
)

// span is an inclusive range of utilization percentages.
type span struct{ lo, hi int }

// profile describes a shape: a setup phase, a main phase and a tail, as fractions of the run,
// with a utilization range each, and the share of memory the main phase holds.
type profile struct {
	setup, tail                   float64
	setupUtil, mainUtil, tailUtil span
	memLo, memHi                  float64
}

// profiles holds every shape's profile.
var profiles = map[Shape]profile{
	Train:      {setup: 0.08, tail: 0.05, setupUtil: span{0, 15}, mainUtil: span{85, 99}, tailUtil: span{10, 30}, memLo: 0.70, memHi: 0.90},
	Finetune:   {setup: 0.03, tail: 0.05, setupUtil: span{0, 15}, mainUtil: span{80, 97}, tailUtil: span{10, 30}, memLo: 0.50, memHi: 0.80},
	Eval:       {setup: 0.02, tail: 0.02, setupUtil: span{0, 15}, mainUtil: span{40, 80}, tailUtil: span{10, 30}, memLo: 0.30, memHi: 0.50},
	IdleHolder: {setupUtil: span{0, 5}, mainUtil: span{0, 5}, tailUtil: span{0, 5}, memLo: 0.30, memHi: 0.60},
	Serve:      {setup: 0.001, setupUtil: span{0, 10}, mainUtil: span{20, 70}, tailUtil: span{20, 70}, memLo: 0.85, memHi: 0.92},
	MemHeavy:   {setup: 0.08, tail: 0.05, setupUtil: span{0, 15}, mainUtil: span{85, 99}, tailUtil: span{10, 30}, memLo: 0.93, memHi: 0.99},
}

// targetMiB draws the memory the main phase holds on a GPU of totalMiB.
func (p profile) targetMiB(rng *rand.Rand, idleMiB, totalMiB int64) int64 {
	share := p.memLo + rng.Float64()*(p.memHi-p.memLo)
	return max(idleMiB, int64(share*float64(totalMiB)))
}

// at returns the utilization and memory at progress x of the run (0 at the start, 1 at the
// end): memory ramps from idleMiB to targetMiB during setup and wavers by ±0.5% of the total
// in the main phase. Results are clamped to 0..100 and 0..totalMiB.
func (p profile) at(x float64, rng *rand.Rand, idleMiB, targetMiB, totalMiB int64) (utilPct int, memMiB int64) {
	switch {
	case x < p.setup:
		utilPct = p.setupUtil.draw(rng)
		memMiB = idleMiB + int64(float64(targetMiB-idleMiB)*x/p.setup)
	case x >= 1-p.tail:
		utilPct = p.tailUtil.draw(rng)
		memMiB = targetMiB
	default:
		utilPct = p.mainUtil.draw(rng)
		jitter := totalMiB / 200
		memMiB = targetMiB + rng.Int64N(2*jitter+1) - jitter
	}
	return min(max(utilPct, 0), 100), min(max(memMiB, 0), totalMiB)
}

// draw picks a value of s uniformly.
func (s span) draw(rng *rand.Rand) int {
	return s.lo + rng.IntN(s.hi-s.lo+1)
}

// workload is a simulated task running on some of a backend's GPUs.
type workload struct {
	shape      Shape
	start, end time.Time
	pid        uint32
	gpus       []*gpu
}

// progress is how far the run is at now: 0 at the start, 1 at the end.
func (w *workload) progress(now time.Time) float64 {
	if !w.end.After(w.start) {
		return 1
	}
	return min(max(float64(now.Sub(w.start))/float64(w.end.Sub(w.start)), 0), 1)
}

// Usage is a reading of a card of totalMiB running a task of shape at progress x of its run
// (0 at the start, 1 at the end), as the backend's cards read, with its idle memory: for
// tools that lay a shape over time without running it (the demo's past month).
func (s Shape) Usage(x float64, rng *rand.Rand, idleMiB, totalMiB int64) (utilPct int, memMiB int64) {
	p := profiles[s]
	return p.at(x, rng, idleMiB, p.targetMiB(rng, idleMiB, totalMiB), totalMiB)
}
