package models

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// usageSettle is how long after the end it records an allocation's end is written at the
// latest, at the least: a task's end is written as it happens. A lost node's allocations
// close at its last sign of life once the scheduler gives it up, which SetLateEnds tells
// the store (NodeLostAfter: five stale periods, at least ten minutes; hours in the demo's
// fast clock); the settle is then that and an hour. Allocations that ended before now minus
// the settle, rounded down to the hour, are summed once and kept (usageCache).
const usageSettle = 2 * time.Hour

// usageRebuild is how long, in clock time, the kept sums serve before they are read whole
// again: what no later read adds (an allocation closed more than the settle in the past
// after it was kept, or a row imported by another process with an id below one already
// read on Postgres) counts from then on, and on a restart.
const usageRebuild = 24 * time.Hour

// usageCache is the card-seconds of the allocations that ended in (since, until], by
// project and spec, as of the allocations with ids up to maxID: UsageSeconds then reads only
// the allocations still open or ended after until, and those inserted since. Every
// scheduling pass, the projects' pages and the submit form's dry run ask for the month's
// use; without it each read every allocation of the month (millions of rows at 32,768
// GPUs by a month's end).
type usageCache struct {
	// lateEnds is SetLateEnds' bound (nanoseconds).
	lateEnds     atomic.Int64
	mu           sync.Mutex
	since, until time.Time
	built        time.Time
	maxID        int64
	secs         map[int64]map[string]int64
}

// usageRow is an allocation as the use of quotas reads it.
type usageRow struct {
	ID        int64
	ProjectID int64
	Spec      string
	StartedAt time.Time
	EndedAt   *time.Time
}

// The reads of the quotas' use: an allocation with its card's spec, and which allocations.
const (
	usageSelect = `SELECT allocations.id, allocations.project_id, gpus.spec, allocations.started_at, allocations.ended_at
FROM allocations JOIN gpus ON gpus.id = allocations.gpu_id WHERE `
	// usageUnkept is every allocation the kept sums (up to id $3, ended by $2) leave out
	// that may overlap the window from $1: open, ended after $2 (after $1 when none are
	// kept), or inserted after them; three parts that share no row, each through an index
	// (the last one's end is a NOT, which SQLite reads through no index: the ids' range it
	// takes instead is the new rows, where the end's index is every row ended before $2).
	usageUnkept = usageSelect + `allocations.ended_at IS NULL
UNION ALL ` + usageSelect + `allocations.ended_at > ?
UNION ALL ` + usageSelect + `allocations.id > ? AND NOT allocations.ended_at > ?`
	// usageSettled is the allocations up to id $1 that ended in ($2, $3].
	usageSettled = usageSelect + `allocations.id <= ? AND allocations.ended_at > ? AND allocations.ended_at <= ?`
	// usageSettledSince is what the sums kept up to an id and an end take in: the allocations
	// up to the new id that ended after the kept end by the new one ($1, $2, $3), and those
	// inserted after the kept id that ended after $6 by the kept end ($4, $5, $6, $7; the
	// end's bounds as a NOT, so that SQLite reads this part by the ids' range, not the month).
	usageSettledSince = usageSelect + `(allocations.ended_at > ? AND allocations.ended_at <= ? AND allocations.id <= ?)
OR (allocations.id > ? AND allocations.id <= ? AND NOT (allocations.ended_at <= ? OR allocations.ended_at > ?))`
)

// SetLateEnds tells the store how long after the time it records an allocation's end may be
// written: the scheduler's NodeLostAfter, after which a lost node's allocations close at its
// last sign of life. The quotas' use keeps only the allocations that ended before it and an
// hour more (at least usageSettle).
func (s *Store) SetLateEnds(d time.Duration) { s.usage.lateEnds.Store(int64(d)) }

// settle is how far back from now the kept sums of the quotas' use end, before rounding.
func (c *usageCache) settle() time.Duration {
	return max(usageSettle, time.Duration(c.lateEnds.Load())+time.Hour)
}

// UsageSeconds returns the card-seconds each project held on each spec in [since, now):
// closed and open allocations, clipped to the window. The allocations that ended before
// the settled hour are summed once and kept (usageCache); the rest are read each call.
func (s *Store) UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error) {
	until := now.Add(-s.usage.settle()).Truncate(time.Hour)
	out := map[int64]map[string]int64{}
	after, maxID := since, int64(math.MaxInt64)
	if until.After(since) {
		kept, id, upTo, err := s.settledUsage(ctx, since, until, now)
		if err != nil {
			return nil, fmt.Errorf("models: usage since %s: %w", since, err)
		}
		out, after, maxID = kept, upTo, id
	}
	var rows []usageRow
	if err := s.db.WithContext(ctx).Raw(usageUnkept, UTC(after), maxID, UTC(after)).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: usage since %s: %w", since, err)
	}
	addUsage(out, rows, since, now)
	return out, nil
}

// settledUsage is the card-seconds of the allocations that ended in (since, until] (a copy),
// the highest allocation id they were read to, and the until they were kept to: kept from
// the last call and brought up to until and to the rows inserted since, or read whole when
// since moved, the clock went back past the kept hour, or the sums are usageRebuild old. A
// call whose clock is a moment behind the last one's, across the hour (a page's against the
// scheduler's), takes the sums as kept, to the later hour, which is settled for it too: the
// settle has an hour to spare.
func (s *Store) settledUsage(ctx context.Context, since, until, now time.Time) (map[int64]map[string]int64, int64, time.Time, error) {
	c := &s.usage
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.secs != nil && until.Before(c.until) && now.Sub(c.until) > c.settle()-time.Hour {
		until = c.until
	}
	whole := c.secs == nil || !c.since.Equal(since) || until.Before(c.until) || now.Sub(c.built) >= usageRebuild
	// A bare MAX, which SQLite reads as the key's last entry (within COALESCE, it read every row).
	var last *int64
	if err := s.db.WithContext(ctx).Raw("SELECT MAX(id) FROM allocations").Scan(&last).Error; err != nil {
		return nil, 0, time.Time{}, err
	}
	var maxID int64
	if last != nil {
		maxID = *last
	}
	q := s.db.WithContext(ctx).Raw(usageSettled, maxID, UTC(since), UTC(until))
	if !whole {
		q = s.db.WithContext(ctx).Raw(usageSettledSince, UTC(c.until), UTC(until), maxID, c.maxID, maxID, UTC(since), UTC(c.until))
	}
	var rows []usageRow
	if err := q.Scan(&rows).Error; err != nil {
		return nil, 0, time.Time{}, err
	}
	if whole {
		c.since, c.built, c.secs = since, now, map[int64]map[string]int64{}
	}
	addUsage(c.secs, rows, since, until)
	c.until, c.maxID = until, maxID
	out := make(map[int64]map[string]int64, len(c.secs))
	for p, bySpec := range c.secs {
		out[p] = maps.Clone(bySpec)
	}
	return out, maxID, until, nil
}

// addUsage adds each row's whole seconds within [since, now) to out.
func addUsage(out map[int64]map[string]int64, rows []usageRow, since, now time.Time) {
	for _, r := range rows {
		start, end := r.StartedAt, now
		if r.EndedAt != nil && r.EndedAt.Before(now) {
			end = *r.EndedAt
		}
		if start.Before(since) {
			start = since
		}
		if end.After(start) {
			if out[r.ProjectID] == nil {
				out[r.ProjectID] = make(map[string]int64)
			}
			out[r.ProjectID][r.Spec] += int64(end.Sub(start) / time.Second)
		}
	}
}
