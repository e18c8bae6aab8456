package pilot

import (
	"context"
	"slices"
	"sync"
	"time"
)

// ChangeCache measures each change once per period, in the background, one at a time, and
// keeps the last few measures in memory, so that a page asking for a change answers at once
// (with the measure, or with "computing…" while it runs) instead of replaying in the request.
// A change's periods move once an hour at most (LoadChange), so a cached measure is the one a
// fresh computation would give. A restart forgets the cache.
type ChangeCache struct {
	kept int
	// run allows one measure at a time: each replays a period twice.
	run chan struct{}

	mu      sync.Mutex
	entries []*changeEntry // oldest first
}

// KeptChanges is how many measures a page's cache keeps: a few weeks of changes of a few
// pools.
const KeptChanges = 32

// changeKey is a change and the length of its periods.
type changeKey struct {
	ref  Ref
	span time.Duration
}

// changeEntry is a measure, running until done is closed: change and err are set before.
type changeEntry struct {
	key    changeKey
	done   chan struct{}
	change Change
	err    error
}

// NewChangeCache returns an empty cache that keeps the last kept measures (at least 1).
func NewChangeCache(kept int) *ChangeCache {
	return &ChangeCache{kept: max(kept, 1), run: make(chan struct{}, 1)}
}

// Peek returns the measure of the change ref names as of now, true, when it is
// done; otherwise it starts measuring it in the background, unless that already runs, and
// returns the change without its measure (who, when, what: as a change not yet Ready), false.
// A change less than MinAfter old is measured at once (there is nothing to replay). A measure
// that failed is returned once, then measured again on the next call.
func (cc *ChangeCache) Peek(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (Change, bool, error) {
	e, c, err := cc.start(ctx, src, ref, now)
	if e == nil || err != nil {
		return c, err == nil, err
	}
	select {
	case <-e.done:
		return cc.result(e)
	default:
		return c, false, nil
	}
}

// Measure is Peek waiting for the measure (or ctx's end).
func (cc *ChangeCache) Measure(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (Change, error) {
	e, c, err := cc.start(ctx, src, ref, now)
	if e == nil || err != nil {
		return c, err
	}
	select {
	case <-e.done:
		c, _, err := cc.result(e)
		return c, err
	case <-ctx.Done():
		return Change{}, ctx.Err()
	}
}

// start finds the change's entry for its periods as of now, starting its measure when there
// is none, and returns it with the change unmeasured. A change with nothing to measure (not
// yet ready) comes back measured without an entry.
func (cc *ChangeCache) start(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (*changeEntry, Change, error) {
	in, span, err := changeAt(ctx, src, ref, now)
	if err != nil {
		return nil, Change{}, err
	}
	head, err := ComputeChange(in) // not Ready: who, when, what
	if err != nil || span < MinAfter {
		return nil, head, err
	}
	key := changeKey{ref: ref, span: span}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if i := slices.IndexFunc(cc.entries, func(e *changeEntry) bool { return e.key == key }); i >= 0 {
		return cc.entries[i], head, nil
	}
	e := &changeEntry{key: key, done: make(chan struct{})}
	cc.entries = append(cc.entries, e)
	cc.expire()
	bg := context.WithoutCancel(ctx) // the measure outlives the request that asked for it
	go func() {
		cc.run <- struct{}{}
		c, err := MeasureChange(bg, src, ref, now)
		<-cc.run
		e.change, e.err = c, err
		close(e.done)
	}()
	return e, head, nil
}

// result is a done entry's measure; a failed one is dropped, to be measured again.
func (cc *ChangeCache) result(e *changeEntry) (Change, bool, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if e.err != nil {
		cc.entries = slices.DeleteFunc(cc.entries, func(x *changeEntry) bool { return x == e })
		return Change{}, true, e.err
	}
	return e.change, true, nil
}

// expire drops the oldest done entries past kept; running ones stay.
func (cc *ChangeCache) expire() {
	for over := len(cc.entries) - cc.kept; over > 0; over-- {
		i := slices.IndexFunc(cc.entries, func(e *changeEntry) bool {
			select {
			case <-e.done:
				return true
			default:
				return false
			}
		})
		if i < 0 {
			return
		}
		cc.entries = slices.Delete(cc.entries, i, i+1)
	}
}
