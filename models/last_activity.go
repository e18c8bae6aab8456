package models

import (
	"context"
	"fmt"
	"time"
)

// LastStamp is the latest time the fleet, the queue or the ledger stamped: a node heard
// from, a task's transition, an allocation closed, a scaling event; zero for a database that
// holds none. A clock that stopped (the demo's, on a database it used before) continues from
// there, so that it never runs behind a time already written: were it to, a node heard from
// moments before a crash would still look alive, and its cards, freed at a later time, would
// be given again at an earlier one.
func (s *Store) LastStamp(ctx context.Context) (time.Time, error) {
	var last time.Time
	for _, q := range []struct{ table, column string }{
		{"nodes", "last_seen_at"}, {"task_events", "at"}, {"allocations", "ended_at"}, {"scaling_events", "at"},
	} {
		var ts []time.Time
		err := s.db.WithContext(ctx).Table(q.table).Where(q.column+" IS NOT NULL").
			Order(q.column+" DESC").Limit(1).Pluck(q.column, &ts).Error
		if err != nil {
			return time.Time{}, fmt.Errorf("models: last stamp of %s: %w", q.table, err)
		}
		if len(ts) > 0 && ts[0].After(last) {
			last = ts[0]
		}
	}
	return last.UTC(), nil
}
