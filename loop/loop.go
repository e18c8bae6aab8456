// Package loop runs Kashi's periodic control loops — the scheduler, the scaling loop, data
// checks, rollups, alerts and reminders — one way: each on its period and on Trigger, with a
// growing pause after an error, until its context ends. Periods are given in clock time and
// divided once by the Set's speed (the demo's clock runs fast).
package loop

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// Loop calls its function on every period and soon after every Trigger. Build it with
// Set.Every.
type Loop struct {
	name   string
	period time.Duration
	gap    time.Duration
	fn     func(ctx context.Context) error
	wake   chan struct{}
}

// Trigger asks for a pass soon; it never blocks, and triggers that arrive while one is
// pending are one.
func (l *Loop) Trigger() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Coalesce makes passes at least gap (real time) apart, so a burst of triggers (fifty
// submits a second) makes a few passes, not one each; a trigger never makes a pass later
// than the period would. A pass that takes longer than a fifth of the gap stretches it to
// passCost times its own time: under a stream of triggers the loop keeps to a fifth of a
// core whatever the fleet's size (at 32,768 GPUs a scheduler pass reads every node and
// card, about a quarter of a second). It returns l.
func (l *Loop) Coalesce(gap time.Duration) *Loop {
	l.gap = gap
	return l
}

// Name is the loop's name in logs.
func (l *Loop) Name() string { return l.name }

// run passes until ctx ends: the first at once, then every period and on Trigger. A failed
// pass is logged and the next waits longer (1 s, doubling up to a minute, each wait
// stretched by a random 0 to 50 %: replicas that failed together do not retry together);
// run never exits the process.
func (l *Loop) run(ctx context.Context, log *slog.Logger) {
	tk := time.NewTicker(l.period)
	defer tk.Stop()
	backoff := time.Duration(0)
	for {
		last := time.Now()
		err := l.fn(ctx)
		busy := time.Since(last)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			backoff = min(max(2*backoff, time.Second), time.Minute)
			wait := jitter(backoff)
			log.Error(l.name+" failed", "err", err, "retry_in", wait)
			if !sleep(ctx, wait) {
				return
			}
		default:
			backoff = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		case <-l.wake:
			// Wait out the gap, but never past the period's own pass: where the period is
			// shorter than the gap (the demo's sped-up clock), a trigger must not delay it.
			if !sleepOrTick(ctx, triggeredWait(l.gap, busy, time.Since(last)), tk.C) {
				return
			}
			select { // triggers that came during the gap are served by this pass
			case <-l.wake:
			default:
			}
		}
	}
}

// passCost is how many times its own time a coalescing loop's pass keeps the next
// triggered pass away, counted from its start.
const passCost = 5

// triggeredWait is how long a triggered pass waits, since elapsed since the previous pass
// began, which took busy: the gap, stretched to passCost times busy (never for a loop that
// does not coalesce).
func triggeredWait(gap, busy, since time.Duration) time.Duration {
	if gap <= 0 {
		return 0
	}
	return max(gap, passCost*busy) - since
}

// jitter stretches a back-off d by a random 0 to 50 %, so that processes that failed at one
// moment (replicas losing one database) spread their retries.
func jitter(d time.Duration) time.Duration {
	return d + rand.N(d/2+1)
}

// sleep waits d (nothing when d ≤ 0) and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// sleepOrTick waits d (nothing when d ≤ 0) or until tick fires, and reports whether ctx is
// still live.
func sleepOrTick(ctx context.Context, d time.Duration, tick <-chan time.Time) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-tick:
	}
	return true
}

// Set is the loops one server runs together.
type Set struct {
	speed float64
	log   *slog.Logger
	loops []*Loop
}

// NewSet returns an empty set whose periods run speed times faster than given (1 for real
// time; the demo's clock speed otherwise).
func NewSet(speed float64, log *slog.Logger) *Set {
	if speed <= 0 {
		speed = 1
	}
	if log == nil {
		log = slog.Default()
	}
	return &Set{speed: speed, log: log}
}

// Every adds a loop that calls fn every period of clock time (and on Trigger) once the set
// runs.
func (s *Set) Every(name string, period time.Duration, fn func(ctx context.Context) error) *Loop {
	l := &Loop{name: name, period: max(time.Duration(float64(period)/s.speed), time.Millisecond), fn: fn,
		wake: make(chan struct{}, 1)}
	s.loops = append(s.loops, l)
	return l
}

// Run runs every loop of the set until ctx ends and returns when all have stopped.
func (s *Set) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, l := range s.loops {
		wg.Go(func() { l.run(ctx, s.log) })
	}
	wg.Wait()
}
