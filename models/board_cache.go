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
// change it (Store.gen); one read at a time, which every waiting request shares.
//
// With a lag, the snapshot is kept fresh behind the viewers rather than in front of them:
// while someone has looked at the board in the last viewedFor, a keeper reads it again every
// half lag when it changed, and a request serves the snapshot it finds unless that is older
// than twice the lag (the board's first view after a quiet spell); a costly read stretches
// the lag (effectiveLag). Under a stream of changes the board is read twice per lag at most,
// and a viewer almost never waits for the read (the board's whole answer should be under
// 100 ms). A read takes the nodes and GPUs from the fleet cache and reads only the holders
// (board.go, queryBoard).
type boardCache struct {
	lag time.Duration
	// cost is how long the latest read took (nanoseconds): a read that costs more than a
	// twentieth of the lag stretches it (effectiveLag).
	cost   atomic.Int64
	snap   atomic.Pointer[boardSnap]
	mu     sync.Mutex
	viewed atomic.Int64 // Unix nanoseconds of the latest request
	quit   chan struct{}
	done   chan struct{}
	stop   sync.Once
}

// lagPerCost is how many times its latest read's time the lag is, at least. The keeper
// reads every half lag, so it spends at most about a tenth of a core whatever the fleet's
// size. At 32,768 GPUs a read of the whole join was about 140 ms of CPU (354 ms on a loaded
// Postgres), and read every half second it took a third of the two cores of the machine #37
// is measured on; the holders shown then lagged by up to about 3 s there. A small fleet's
// board keeps the configured lag.
const lagPerCost = 20

// effectiveLag is the lag, stretched to lagPerCost times the latest read's time; no lag
// stays none (every change is read before answering).
func (b *boardCache) effectiveLag() time.Duration {
	if b.lag <= 0 {
		return 0
	}
	return max(b.lag, lagPerCost*time.Duration(b.cost.Load()))
}

// BoardLag is how far behind the latest change the board may be shown: the configured lag,
// stretched by a costly read (effectiveLag); zero when it must be current.
func (s *Store) BoardLag() time.Duration { return s.board.effectiveLag() }

// viewedFor is how long after the latest view the keeper goes on reading the board.
const viewedFor = 30 * time.Second

// boardSnapshot returns a snapshot no older than the latest change (or than the lag).
func (s *Store) boardSnapshot(ctx context.Context) (*boardSnap, error) {
	b := &s.board
	b.viewed.Store(time.Now().UnixNano())
	if snap := b.snap.Load(); snap != nil {
		if snap.gen == s.gen.Load() || time.Since(snap.at) < 2*b.effectiveLag() {
			return snap, nil
		}
	}
	return s.refreshBoard(ctx, true)
}

// keepBoard reads the board again every half (effective) lag while it changed and was
// viewed lately, until stopBoard.
func (s *Store) keepBoard() {
	b := &s.board
	b.quit, b.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(b.done)
		tick := time.NewTimer(b.lag / 2)
		defer tick.Stop()
		for {
			select {
			case <-b.quit:
				return
			case <-tick.C:
			}
			tick.Reset(b.effectiveLag() / 2)
			snap := b.snap.Load()
			if snap == nil || snap.gen == s.gen.Load() || time.Since(time.Unix(0, b.viewed.Load())) > viewedFor {
				continue
			}
			_, _ = s.refreshBoard(context.Background(), false) // a failed read is tried by the next request
		}
	}()
}

// stopBoard ends the keeper, if any.
func (s *Store) stopBoard() {
	if b := &s.board; b.quit != nil {
		b.stop.Do(func() { close(b.quit) })
		<-b.done
	}
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
	defer func() { b.cost.Store(int64(time.Since(snap.at))) }()
	if err := s.queryBoard(ctx, snap); err != nil {
		return nil, err
	}
	s.live.keep(snap.rows)
	b.snap.Store(snap)
	return snap, nil
}
