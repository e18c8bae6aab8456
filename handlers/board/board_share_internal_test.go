package board

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// countedRender is a render of the board that counts its calls.
func countedRender() (func() ([]byte, error), *atomic.Int32) {
	var n atomic.Int32
	return func() ([]byte, error) {
		n.Add(1)
		return []byte("board"), nil
	}, &n
}

// TestBoardShareRendersOncePerData: one render per view and data version, shared by the
// viewers asking meanwhile; a new version, or the interval passed, renders again.
func TestBoardShareRendersOncePerData(t *testing.T) {
	render, renders := countedRender()
	sh := newBoardShare(2 * time.Second)
	k := shareKey{lang: "en"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := sh.get(k, t0, 1, 0, render); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := renders.Load(); n != 1 {
		t.Fatalf("8 viewers of one view and version: %d renders, want 1", n)
	}
	for _, step := range []struct {
		at      time.Duration
		version uint64
		want    int32
	}{{time.Second, 1, 1}, {time.Second, 2, 2}, {2500 * time.Millisecond, 2, 2}, {3500 * time.Millisecond, 2, 3}} {
		if _, err := sh.get(k, t0.Add(step.at), step.version, 0, render); err != nil {
			t.Fatal(err)
		}
		if n := renders.Load(); n != step.want {
			t.Errorf("at +%s version %d: %d renders in all, want %d", step.at, step.version, n, step.want)
		}
	}
}

// TestBoardShareServesWithinTheLag: with a lag, a render serves its view whatever changed
// until it is the lag old, still within the interval on the board's clock; without one, each
// new version renders again.
func TestBoardShareServesWithinTheLag(t *testing.T) {
	render, renders := countedRender()
	sh := newBoardShare(2 * time.Second)
	k := shareKey{lang: "en"}
	for _, step := range []struct {
		at      time.Duration
		version uint64
		lag     time.Duration
		want    int32
	}{
		{0, 1, time.Hour, 1},
		{time.Second, 2, time.Hour, 1},             // a new reading: the render, made within the lag, serves
		{1500 * time.Millisecond, 3, 0, 2},         // no lag: a new version renders again
		{1600 * time.Millisecond, 4, time.Hour, 2}, // within the lag again
		{3600 * time.Millisecond, 4, time.Hour, 3}, // the interval passed: renders again
	} {
		if _, err := sh.get(k, t0.Add(step.at), step.version, step.lag, render); err != nil {
			t.Fatal(err)
		}
		if n := renders.Load(); n != step.want {
			t.Errorf("at +%s version %d lag %s: %d renders in all, want %d", step.at, step.version, step.lag, n, step.want)
		}
	}
}
