package models

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// boardSnap is the board's structure as one read found it: every GPU with its node, pool and
// holder, and the filter options. Readings in it are overlaid from the live view on use.
type boardSnap struct {
	gen                    uint64
	at                     time.Time
	rows                   []BoardGPU
	pools, specs, projects []string
}

// boardCache keeps the latest board snapshot. It is read again only after a write that may
// change it (Store.gen); one read at a time, which every waiting request shares. With a lag,
// a snapshot younger than the lag is served as it is, and one past half the lag is read again
// behind the request: under a stream of changes the board is read twice per lag at most.
type boardCache struct {
	lag  time.Duration
	snap atomic.Pointer[boardSnap]
	mu   sync.Mutex
}

// boardSnapshot returns a snapshot no older than the latest change (or than the lag).
func (s *Store) boardSnapshot(ctx context.Context) (*boardSnap, error) {
	b := &s.board
	if snap := b.snap.Load(); snap != nil {
		if snap.gen == s.gen.Load() {
			return snap, nil
		}
		if age := time.Since(snap.at); age < b.lag {
			if age >= b.lag/2 {
				go s.refreshBoard(context.WithoutCancel(ctx), false)
			}
			return snap, nil
		}
	}
	return s.refreshBoard(ctx, true)
}

// refreshBoard reads a new snapshot unless the current one is up to date. wait false gives
// up at once when another read is under way.
func (s *Store) refreshBoard(ctx context.Context, wait bool) (*boardSnap, error) {
	b := &s.board
	if wait {
		b.mu.Lock()
	} else if !b.mu.TryLock() {
		return nil, nil
	}
	defer b.mu.Unlock()
	gen := s.gen.Load()
	if snap := b.snap.Load(); snap != nil && snap.gen == gen {
		return snap, nil
	}
	snap := &boardSnap{gen: gen, at: time.Now()}
	var err error
	if snap.rows, err = s.queryBoardGPUs(ctx); err != nil {
		return nil, err
	}
	if snap.pools, snap.specs, snap.projects, err = s.queryBoardOptions(ctx); err != nil {
		return nil, err
	}
	b.snap.Store(snap)
	return snap, nil
}
