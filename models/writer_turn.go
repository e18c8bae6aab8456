package models

import (
	"context"
	"slices"
	"sync"
)

// writerTurn hands SQLite's one writer connection out one turn at a time: in the order
// asked, except that a write of an aheadOfQueue context goes before every other still
// waiting. database/sql gives a freed connection to a random waiter, so under load a write
// could wait many turns while later ones went first (p99 ingest and submit were 0.3–1.3 s at
// 1,024 agents where p50 was 2–9 ms); in the order asked, a sample commit still waited for
// every write queued before it — the agents' grouped status reports, the readings written
// behind, a pass's placements — 31 ms at p99 and up to 129 ms at 4,096 agents
// (docs/decisions.md, "The writer in turns, and agents' writes committed together", and
// "Samples and submits ahead in the writer's queue").
type writerTurn struct {
	mu   sync.Mutex
	held bool
	// ahead and behind are the waiters, each in the order it asked; a waiter's channel is
	// closed when the turn is its.
	ahead, behind []chan struct{}
}

// aheadKey marks a context whose writes go ahead in the writer's queue.
type aheadKey struct{}

// aheadOfQueue marks ctx's writes to take the writer before the writes of other contexts
// that wait for it: the writes a caller waits for against a latency target (a node's samples,
// a submit), never the background's, whose turns come often and hold the writer longest.
// A write ahead waits only for the turn in progress and the writes ahead asked before it.
func aheadOfQueue(ctx context.Context) context.Context {
	return context.WithValue(ctx, aheadKey{}, true)
}

// take waits for the turn, until ctx ends; done gives it to the next waiter.
func (w *writerTurn) take(ctx context.Context) (done func(), err error) {
	w.mu.Lock()
	if !w.held {
		w.held = true
		w.mu.Unlock()
		return w.give, nil
	}
	mine := make(chan struct{})
	ahead := ctx.Value(aheadKey{}) != nil
	if ahead {
		w.ahead = append(w.ahead, mine)
	} else {
		w.behind = append(w.behind, mine)
	}
	w.mu.Unlock()
	select {
	case <-mine:
		return w.give, nil
	case <-ctx.Done():
	}
	w.mu.Lock()
	select {
	case <-mine: // handed over as ctx ended: give it on
		w.mu.Unlock()
		w.give()
	default:
		if ahead {
			w.ahead = slices.DeleteFunc(w.ahead, func(c chan struct{}) bool { return c == mine })
		} else {
			w.behind = slices.DeleteFunc(w.behind, func(c chan struct{}) bool { return c == mine })
		}
		w.mu.Unlock()
	}
	return nil, ctx.Err()
}

// give ends a turn: the first write ahead waiting, else the first other, takes the writer.
func (w *writerTurn) give() {
	w.mu.Lock()
	defer w.mu.Unlock()
	var next chan struct{}
	switch {
	case len(w.ahead) > 0:
		next, w.ahead = w.ahead[0], w.ahead[1:]
	case len(w.behind) > 0:
		next, w.behind = w.behind[0], w.behind[1:]
	default:
		w.held = false
		return
	}
	close(next)
}
