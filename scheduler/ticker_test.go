package scheduler

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// Triggers in a burst are spaced: a tick a Trigger asks for waits until triggerGap after the
// previous tick.
func TestTickerSpacesTriggeredTicks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	ticks := make(chan struct{}, 4)
	waits, fire := make(chan time.Duration, 4), make(chan time.Time)
	tk := newTicker("test", time.Hour, slog.New(slog.DiscardHandler), func(context.Context) error {
		ticks <- struct{}{}
		return nil
	})
	tk.now = func() time.Time { return t0 }
	tk.after = func(d time.Duration) <-chan time.Time { waits <- d; return fire }
	done := make(chan struct{})
	go func() { tk.Run(ctx); close(done) }()

	tk.Trigger()
	<-ticks // the first tick does not wait
	tk.Trigger()
	tk.Trigger()
	if d := <-waits; d != triggerGap {
		t.Errorf("second tick waits %v, want %v", d, triggerGap)
	}
	select {
	case <-ticks:
		t.Fatal("ticked before the gap passed")
	default:
	}
	fire <- t0
	<-ticks
	cancel()
	<-done
	if len(ticks) != 0 {
		t.Errorf("%d more ticks, want the two triggers in the gap to make one", len(ticks))
	}
}
