package scheduler

import (
	"context"
	"log/slog"
	"time"
)

// ticker drives a control loop: a tick every interval and on every Trigger, with a growing
// pause after a failed tick. The scheduler loop and the scaling loop each own one.
type ticker struct {
	name  string
	wake  chan struct{}
	log   *slog.Logger
	tick  func(ctx context.Context) error
	every time.Duration
	// now and after are the clock; tests replace them.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// triggerGap is the least time from one tick to a tick a Trigger asks for: a burst of
// changes (fifty submits a second) costs one pass a second, not one each.
const triggerGap = time.Second

func newTicker(name string, every time.Duration, log *slog.Logger, tick func(ctx context.Context) error) *ticker {
	return &ticker{name: name, wake: make(chan struct{}, 1), log: log, tick: tick, every: every,
		now: time.Now, after: time.After}
}

// Trigger asks for a tick soon; it never blocks.
func (t *ticker) Trigger() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Run ticks until ctx ends. A failed tick is logged and the next waits longer (1 s, doubling
// up to a minute); Run never exits the process.
func (t *ticker) Run(ctx context.Context) {
	tk := time.NewTicker(t.every)
	defer tk.Stop()
	backoff := time.Duration(0)
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		case <-t.wake:
			if wait := triggerGap - t.now().Sub(last); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-t.after(wait):
				}
			}
		}
		last = t.now()
		err := t.tick(ctx)
		if err == nil {
			backoff = 0
			continue
		}
		if ctx.Err() != nil {
			return
		}
		backoff = min(max(2*backoff, time.Second), time.Minute)
		t.log.Error(t.name+" tick", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
	}
}
