package loop

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond for up to a few seconds; the loops run on real time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunPassesAtStartAndOnTrigger(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := NewSet(1, nil)
	var n atomic.Int32
	l := s.Every("test", time.Hour, func(context.Context) error { n.Add(1); return nil })
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	waitFor(t, "the first pass", func() bool { return n.Load() == 1 })
	l.Trigger()
	waitFor(t, "the triggered pass", func() bool { return n.Load() == 2 })
	cancel()
	<-done
}

func TestSpeedDividesThePeriod(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSet(3600, nil)
	var n atomic.Int32
	s.Every("fast", time.Hour, func(context.Context) error { n.Add(1); return nil }) // one second
	if got := s.loops[0].period; got != time.Second {
		t.Fatalf("period = %v, want 1s", got)
	}
	go s.Run(ctx)
	waitFor(t, "a periodic pass", func() bool { return n.Load() >= 2 })
}

func TestCoalesceMergesABurstOfTriggers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSet(1, nil)
	var n atomic.Int32
	l := s.Every("burst", time.Hour, func(context.Context) error { n.Add(1); return nil }).Coalesce(200 * time.Millisecond)
	go s.Run(ctx)
	waitFor(t, "the first pass", func() bool { return n.Load() == 1 })
	for range 100 {
		l.Trigger()
	}
	waitFor(t, "the coalesced pass", func() bool { return n.Load() == 2 })
	time.Sleep(300 * time.Millisecond)
	if got := n.Load(); got != 2 {
		t.Errorf("passes after 100 triggers = %d, want 2 (the first and one for the burst)", got)
	}
}

func TestErrorBacksOffAndRecovers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSet(1, nil)
	var n atomic.Int32
	l := s.Every("flaky", time.Hour, func(context.Context) error {
		if n.Add(1) == 1 {
			return errors.New("boom")
		}
		return nil
	})
	start := time.Now()
	go s.Run(ctx)
	waitFor(t, "the first pass", func() bool { return n.Load() == 1 })
	l.Trigger()
	waitFor(t, "the pass after the error", func() bool { return n.Load() == 2 })
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("the pass after an error came after %v, want a back-off of at least 1s", waited)
	}
}

func TestRunStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := NewSet(1, nil)
	s.Every("a", time.Hour, func(context.Context) error { return nil })
	s.Every("b", time.Hour, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// TestTriggerNeverDelaysThePeriod: where the period is shorter than the coalescing gap (the
// demo's clock runs 60 times faster: 30 s is half a second, the gap a second), a trigger
// right after a pass still lets the next periodic pass come; it used to wait out the whole
// gap, a minute of the demo's clock after every task's exit.
func TestTriggerNeverDelaysThePeriod(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSet(1, nil)
	var n atomic.Int32
	l := s.Every("fast", 20*time.Millisecond, func(context.Context) error { n.Add(1); return nil }).Coalesce(time.Hour)
	go s.Run(ctx)
	waitFor(t, "the first pass", func() bool { return n.Load() == 1 })
	l.Trigger()
	waitFor(t, "the periodic pass after a trigger", func() bool { return n.Load() >= 3 })
}

// Two runners' waits after the same failures differ, each between the back-off and half as
// much again.
func TestBackoffJitter(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 8 * time.Second, time.Minute} {
		var a, b []time.Duration
		for range 20 {
			a, b = append(a, jitter(d)), append(b, jitter(d))
		}
		for _, w := range append(a, b...) {
			if w < d || w > d+d/2 {
				t.Errorf("jitter(%v) = %v, want within [%v, %v]", d, w, d, d+d/2)
			}
		}
		if slices.Equal(a, b) {
			t.Errorf("two runners waited the same after %v: %v", d, a)
		}
	}
}

// A triggered pass waits out the gap, stretched to passCost times the previous pass's time
// when that pass was long, counted from its start; a loop that does not coalesce never waits.
func TestCostlyPassesStretchTheGap(t *testing.T) {
	for _, tc := range []struct{ gap, busy, since, want time.Duration }{
		{0, time.Second, 0, 0},
		{time.Second, 10 * time.Millisecond, 10 * time.Millisecond, 990 * time.Millisecond},
		{time.Second, 200 * time.Millisecond, 200 * time.Millisecond, 800 * time.Millisecond},
		{time.Second, 400 * time.Millisecond, 400 * time.Millisecond, 1600 * time.Millisecond},
		{time.Second, 400 * time.Millisecond, 3 * time.Second, -time.Second},
	} {
		if got := triggeredWait(tc.gap, tc.busy, tc.since); got != tc.want {
			t.Errorf("gap %v, pass %v, %v since: wait %v, want %v", tc.gap, tc.busy, tc.since, got, tc.want)
		}
	}
}
