package models

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// ServiceServing classes inference services' card time by what the services served, not by
// how busy their cards were: a replica's card-seconds in a 5-minute bucket in which its
// service served a request are serving; the rest, also where no scrape answered, are idle
// (cards held for nothing). A model server answering a request a second keeps its cards
// under the idle threshold of utilization and yet does the work it holds them for. The
// Models page (ServiceUses) and bills (package billing) class services' card time through
// the same Split over the same ServedBuckets, so they show the same hours.
type ServiceServing struct {
	// Replicas maps the task id of each replica to its service's id.
	Replicas map[int64]int64
	// Served are each service's 5-minute buckets (Unix seconds of their start) in which it
	// served a request, sorted (ServedBuckets).
	Served map[int64][]int64
}

// ServiceOf is the service whose replica task is, if it is one.
func (v ServiceServing) ServiceOf(task int64) (int64, bool) {
	s, ok := v.Replicas[task]
	return s, ok
}

// Split splits the card-seconds of one card held over [start, end) (Unix seconds) by a
// replica of service into those in buckets in which the service served a request and the
// rest: serving + idle = end − start.
func (v ServiceServing) Split(service, start, end int64) (serving, idle int64) {
	if end <= start {
		return 0, 0
	}
	bs := v.Served[service]
	i, _ := slices.BinarySearch(bs, start-start%Rollup5m)
	for ; i < len(bs) && bs[i] < end; i++ {
		serving += min(end, bs[i]+Rollup5m) - max(start, bs[i])
	}
	return serving, end - start - serving
}

// ServiceReplicas maps the task id of every service replica that held cards in the period
// of q (of its project, or of all) to its service's id.
func (s *Store) ServiceReplicas(ctx context.Context, q LedgerQuery) (map[int64]int64, error) {
	cond, args := q.where("allocations.")
	var rows []struct {
		ID        int64
		ServiceID int64
	}
	err := s.db.WithContext(ctx).Table("tasks").Select("tasks.id, tasks.service_id").
		Where("tasks.service_id IS NOT NULL AND EXISTS (SELECT 1 FROM allocations WHERE allocations.task_id = tasks.id AND "+cond+")", args...).
		Order("+tasks.id").Scan(&rows).Error // through the replicas' index, as serviceReplicasSince
	if err != nil {
		return nil, fmt.Errorf("models: service replicas: %w", err)
	}
	out := make(map[int64]int64, len(rows))
	for _, r := range rows {
		out[r.ID] = r.ServiceID
	}
	return out, nil
}

// ServedBuckets returns, for each of the services, the 5-minute buckets that overlap [from,
// to) in which it served a request, sorted: from the services' rollups and, past
// ServiceRollupKeep, from what their pruning kept of them (service_served), so that a bill
// classes a service's card time the same however old its month.
func (s *Store) ServedBuckets(ctx context.Context, serviceIDs []int64, from, to time.Time) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(serviceIDs) == 0 {
		return out, nil
	}
	lo, hi := from.Unix()-Rollup5m, to.Unix()
	var rows []struct {
		ServiceID int64
		Bucket    int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT service_id, bucket FROM service_rollups
		WHERE service_id IN ? AND bucket > ? AND bucket < ? AND `+servedSQL+`
		UNION ALL SELECT service_id, bucket FROM service_served WHERE service_id IN ? AND bucket > ? AND bucket < ?`,
		serviceIDs, lo, hi, serviceIDs, lo, hi).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: served buckets: %w", err)
	}
	for _, r := range rows {
		out[r.ServiceID] = append(out[r.ServiceID], r.Bucket)
	}
	for id, bs := range out {
		out[id] = slices.Compact(slices.Sorted(slices.Values(bs)))
	}
	return out, nil
}

// servedSQL is the condition on a service rollup that its service served in its bucket.
const servedSQL = "requests > 0"
