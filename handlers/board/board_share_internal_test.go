package board

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// TestBoardShareRendersOncePerData: one render per view and data version, shared by the
// viewers asking meanwhile; a new version, or the interval passed, renders again.
func TestBoardShareRendersOncePerData(t *testing.T) {
	var renders atomic.Int32
	render := func() ([]byte, error) {
		renders.Add(1)
		return []byte("board"), nil
	}
	sh := newBoardShare(2 * time.Second)
	k := shareKey{lang: "en"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := sh.get(k, t0, 1, render); err != nil {
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
		if _, err := sh.get(k, t0.Add(step.at), step.version, render); err != nil {
			t.Fatal(err)
		}
		if n := renders.Load(); n != step.want {
			t.Errorf("at +%s version %d: %d renders in all, want %d", step.at, step.version, n, step.want)
		}
	}
}
