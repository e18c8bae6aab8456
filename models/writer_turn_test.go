package models

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// queued counts w's waiters.
func (w *writerTurn) queued() (ahead, behind int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ahead), len(w.behind)
}

// isHeld says whether a turn is in progress.
func (w *writerTurn) isHeld() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held
}

// waitQueued waits until w has ahead and behind waiters.
func waitQueued(t *testing.T, w *writerTurn, ahead, behind int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		a, b := w.queued()
		if a == ahead && b == behind {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d ahead and %d behind wait for the writer, want %d and %d", a, b, ahead, behind)
		}
		time.Sleep(time.Millisecond)
	}
}

// The writer goes to the writes ahead in the order they asked, then to the others in theirs.
func TestWriterTurnAheadFirst(t *testing.T) {
	w := &writerTurn{}
	release, err := w.take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ahead := []bool{false, false, true, false, true}
	var order []int // appended to by the holder of the writer
	var wg sync.WaitGroup
	nAhead, nBehind := 0, 0
	for i, a := range ahead {
		ctx := context.Background()
		if a {
			ctx, nAhead = aheadOfQueue(ctx), nAhead+1
		} else {
			nBehind++
		}
		wg.Go(func() {
			done, err := w.take(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			order = append(order, i)
			done()
		})
		waitQueued(t, w, nAhead, nBehind) // queued in this order
	}
	release()
	wg.Wait()
	if want := []int{2, 4, 0, 1, 3}; !slices.Equal(order, want) {
		t.Errorf("the writes took the writer in the order %v, want %v", order, want)
	}
	if w.isHeld() {
		t.Error("the writer is still held after every turn ended")
	}
}

// A write whose context ends while it waits leaves the queue and is answered its context's
// error; the turns go on without it.
func TestWriterTurnLeftWhenContextEnds(t *testing.T) {
	w := &writerTurn{}
	release, err := w.take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ahead := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		if ahead {
			ctx = aheadOfQueue(ctx)
		}
		got := make(chan error, 1)
		go func() {
			done, err := w.take(ctx)
			if err == nil {
				done()
			}
			got <- err
		}()
		if ahead {
			waitQueued(t, w, 1, 0)
		} else {
			waitQueued(t, w, 0, 1)
		}
		cancel()
		if err := <-got; err != context.Canceled {
			t.Errorf("take (ahead %v) = %v after its context ended, want context.Canceled", ahead, err)
		}
		waitQueued(t, w, 0, 0)
	}
	release()
	if w.isHeld() {
		t.Error("the writer is held after its only turn ended")
	}
}

// Many writes ahead and behind, some giving up while they wait or as the turn comes: one
// holds the writer at a time, every one that does not give up gets it, and at the end it is
// free with nobody queued.
func TestWriterTurnOneAtATime(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	w := &writerTurn{}
	var holding, turns, gaveUp atomic.Int64
	var wg sync.WaitGroup
	for g := range 32 {
		rng := rand.New(rand.NewPCG(seed, uint64(g)))
		ahead, patience := make([]bool, 50), make([]time.Duration, 50)
		for i := range ahead {
			ahead[i] = rng.IntN(3) == 0
			if rng.IntN(4) == 0 {
				patience[i] = time.Duration(rng.IntN(200)) * time.Microsecond
			}
		}
		wg.Go(func() {
			for i := range ahead {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if patience[i] > 0 {
					ctx, cancel = context.WithTimeout(ctx, patience[i])
				}
				if ahead[i] {
					ctx = aheadOfQueue(ctx)
				}
				done, err := w.take(ctx)
				cancel()
				if err != nil {
					gaveUp.Add(1)
					continue
				}
				if n := holding.Add(1); n != 1 {
					t.Errorf("%d writes hold the writer at once", n)
				}
				turns.Add(1)
				time.Sleep(time.Duration(i%3) * 10 * time.Microsecond)
				holding.Add(-1)
				done()
			}
		})
	}
	wg.Wait()
	if turns.Load()+gaveUp.Load() != 32*50 {
		t.Errorf("%d turns and %d given up of %d writes", turns.Load(), gaveUp.Load(), 32*50)
	}
	if a, b := w.queued(); w.isHeld() || a+b > 0 {
		t.Errorf("after every write the writer is held %v with %d ahead and %d behind waiting", w.isHeld(), a, b)
	}
}
