package demo

import (
	"testing"
	"time"
)

// TestClockHolds: a held clock reads the same however long it is held, and a released one
// goes on from that reading, never back.
func TestClockHolds(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	c := NewClock(t0, 3600)
	held := c.Hold()
	if held.Before(t0) {
		t.Fatalf("held at %v, before the start %v", held, t0)
	}
	time.Sleep(5 * time.Millisecond)
	if got := c.Now(); !got.Equal(held) {
		t.Fatalf("a held clock moved: %v, held at %v", got, held)
	}
	if again := c.Hold(); !again.Equal(held) {
		t.Fatalf("holding a held clock moved it: %v, held at %v", again, held)
	}
	c.Release()
	for c.Now().Equal(held) {
		time.Sleep(time.Millisecond)
	}
	if got := c.Now(); got.Before(held) {
		t.Fatalf("a released clock went back: %v, held at %v", got, held)
	}
}
