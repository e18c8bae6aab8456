package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"kashi/serving"
)

// ServiceUse is one inference service over a window, as the Models page shows it: its
// replicas now, the cards they held in the window and how busy those were, and what the
// replicas served, merged exactly from the service's 5-minute rollups.
type ServiceUse struct {
	ServiceID int64
	ProjectID int64
	Project   string
	Name      string
	Owner     string
	Model     string
	// TTFTTargetMS is the service's p95 target; 0 for none.
	TTFTTargetMS int
	// Replicas is how many were asked; Live how many start or run now, holding GPUs cards;
	// Failing how many live ones whose last scrape failed (FailingError the first's error).
	Replicas     int
	Live         int
	GPUs         int
	Failing      int
	FailingError string
	// Spec is the spec of the cards the replicas held (the first's, by card); StartedAt is
	// when the first replica started (zero while none has).
	Spec      string
	StartedAt time.Time
	// CardSeconds is the card-seconds the replicas held within the window; UtilSum and UtilN
	// the sum and count of their cards' utilization readings there (0 when none).
	CardSeconds float64
	UtilSum     int64
	UtilN       int64
	// IdleCardSeconds is the part of CardSeconds held in 5-minute buckets in which the
	// service served no request (or no scrape answered): cards held for nothing, classed as
	// bills class it (ServiceServing).
	IdleCardSeconds float64
	// spans are the replicas' card holdings within the window, [start, end) in Unix seconds.
	spans [][2]int64
	// Points split the window into equal parts, oldest first (see ServicePointSeconds).
	Points []ServicePoint
	// Served is what the replicas served in the 5-minute buckets that overlap the window;
	// Buckets counts them.
	Served  serving.Snapshot
	Buckets int
	// LastRequestAt is the end of the latest 5-minute bucket with a request; zero when none
	// in the window.
	LastRequestAt time.Time
}

// serviceReplicasSince selects the service replicas live or ended since a time, with their
// project's name, by id. The replicas are read through the partial index of the tasks'
// service (migration 60); the + keeps SQLite from reading every task in id order to spare
// itself the sort of a few rows.
const serviceReplicasSince = `SELECT tasks.*, projects.name AS project FROM tasks JOIN projects ON projects.id = tasks.project_id
	WHERE tasks.service_id IS NOT NULL AND tasks.kind = ? AND (tasks.ended_at IS NULL OR tasks.ended_at >= ?) ORDER BY +tasks.id`

// ServiceUses returns the services live now or with a replica that ended within [from, to),
// by project and name, each with its use over the window.
func (s *Store) ServiceUses(ctx context.Context, from, to time.Time) ([]ServiceUse, error) {
	from, to = UTC(from), UTC(to)
	db := s.db.WithContext(ctx)
	var replicas []TaskRow
	err := db.Raw(serviceReplicasSince, TaskKindService, from).Scan(&replicas).Error
	if err != nil {
		return nil, fmt.Errorf("models: services: %w", err)
	}
	if len(replicas) == 0 {
		return nil, nil
	}
	byID := map[int64]*ServiceUse{}
	var order []int64
	ids := make([]int64, len(replicas))
	serviceOf := map[int64]int64{}
	for i, r := range replicas {
		ids[i], serviceOf[r.ID] = r.ID, *r.ServiceID
		u, ok := byID[*r.ServiceID]
		if !ok {
			u = &ServiceUse{ServiceID: *r.ServiceID, ProjectID: r.ProjectID, Project: r.Project, Name: r.Name, Owner: r.Owner,
				Model: r.Model, Replicas: r.Replicas, TTFTTargetMS: r.TTFTTargetMS}
			byID[*r.ServiceID] = u
			order = append(order, *r.ServiceID)
		}
		if r.StartedAt != nil && (u.StartedAt.IsZero() || r.StartedAt.Before(u.StartedAt)) {
			u.StartedAt = UTC(*r.StartedAt)
		}
		if r.Live() {
			u.Live++
			u.GPUs += r.GPUs
			if r.ScrapeError != "" {
				u.Failing++
				u.FailingError = cmp.Or(u.FailingError, r.ScrapeError)
			}
		}
	}
	if err := s.addServiceCards(ctx, byID, serviceOf, ids, from, to); err != nil {
		return nil, err
	}
	// The buckets that overlap the window: the one it starts in, and the one now fills.
	rows, err := s.ServiceRollups(ctx, order, from.Add(-(Rollup5m-1)*time.Second), to.Add(time.Second))
	if err != nil {
		return nil, err
	}
	step := ServicePointSeconds(to.Sub(from))
	n := max(1, int((to.Unix()-from.Unix()+step-1)/step))
	for _, id := range order {
		byID[id].Points = servicePoints(byID[id].spans, from.Unix(), step, n)
	}
	for _, row := range rows {
		u := byID[row.ServiceID]
		snap, err := row.Served()
		if err != nil {
			return nil, fmt.Errorf("models: services: %w", err)
		}
		u.Served = serving.Merge(u.Served, snap)
		i := min(max(0, int((row.Bucket+Rollup5m/2-from.Unix())/step)), n-1)
		u.Points[i].Served = serving.Merge(u.Points[i].Served, snap)
		u.Buckets++
		if row.Requests > 0 {
			u.LastRequestAt = time.Unix(row.Bucket+Rollup5m, 0).UTC()
		}
	}
	// Idle is classed as bills class it: the same buckets served, the same Split.
	served, err := s.ServedBuckets(ctx, order, from, to)
	if err != nil {
		return nil, err
	}
	classes := ServiceServing{Served: served}
	out := make([]ServiceUse, 0, len(order))
	for _, id := range order {
		u := byID[id]
		var idle int64
		for _, sp := range u.spans {
			_, i := classes.Split(id, sp[0], sp[1])
			idle += i
		}
		u.IdleCardSeconds = float64(idle)
		u.spans = nil
		out = append(out, *u)
	}
	slices.SortStableFunc(out, func(a, b ServiceUse) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ServiceID, b.ServiceID))
	})
	return out, nil
}

// addServiceCards adds each service's card-seconds within [from, to), its cards' spec and
// their utilization readings in the window's 5-minute rollups while the replicas held them.
func (s *Store) addServiceCards(ctx context.Context, byID map[int64]*ServiceUse, serviceOf map[int64]int64, taskIDs []int64, from, to time.Time) error {
	var cards []struct {
		TaskID    int64
		GPUID     int64 `gorm:"column:gpu_id"`
		Spec      string
		StartedAt time.Time
		EndedAt   *time.Time
	}
	err := s.db.WithContext(ctx).Table("allocations").
		Select("allocations.task_id, allocations.gpu_id, gpus.spec, allocations.started_at, allocations.ended_at").
		Joins("JOIN gpus ON gpus.id = allocations.gpu_id").
		Where("allocations.task_id IN ? AND allocations.started_at < ? AND (allocations.ended_at IS NULL OR allocations.ended_at > ?)", taskIDs, to, from).
		Order("allocations.id").Scan(&cards).Error
	if err != nil {
		return fmt.Errorf("models: services' cards: %w", err)
	}
	gpuIDs := make([]int64, 0, len(cards))
	for _, c := range cards {
		gpuIDs = append(gpuIDs, c.GPUID)
	}
	rollups, err := s.GPUHistory(ctx, gpuIDs, Rollup5m, from, to)
	if err != nil {
		return err
	}
	byGPU := map[int64][]GPURollup{}
	for _, r := range rollups {
		byGPU[r.GPUID] = append(byGPU[r.GPUID], r)
	}
	for _, c := range cards {
		u := byID[serviceOf[c.TaskID]]
		u.Spec = cmp.Or(u.Spec, c.Spec)
		start, end := UTC(c.StartedAt), to
		if start.Before(from) {
			start = from
		}
		if c.EndedAt != nil && c.EndedAt.Before(to) {
			end = UTC(*c.EndedAt)
		}
		if end.After(start) {
			u.CardSeconds += end.Sub(start).Seconds()
			u.spans = append(u.spans, [2]int64{start.Unix(), end.Unix()})
		}
		for _, r := range byGPU[c.GPUID] {
			if r.Bucket >= start.Unix()-start.Unix()%Rollup5m && r.Bucket < end.Unix() {
				u.UtilSum += r.UtilSum
				u.UtilN += r.N
			}
		}
	}
	return nil
}

// ServicePoint is one part of a ServiceUse's window: from At, the card-seconds its replicas
// held and what they served (the 5-minute buckets whose middle falls in it).
type ServicePoint struct {
	At          time.Time
	CardSeconds float64
	Served      serving.Snapshot
}

// ServicePointSeconds is the length of a ServiceUse's points over a window: the shortest of
// 5 minutes, an hour, 6 hours and a day that splits it into at most 30 (an hour in 12, a
// day in 24, a week in 28, 30 days in 30).
func ServicePointSeconds(window time.Duration) int64 {
	for _, step := range []int64{Rollup5m, RollupHour, 6 * RollupHour} {
		if int64(window.Seconds()) <= 30*step {
			return step
		}
	}
	return 24 * RollupHour
}

// servicePoints are n points of step seconds from from, with the card-seconds of spans in
// each.
func servicePoints(spans [][2]int64, from, step int64, n int) []ServicePoint {
	out := make([]ServicePoint, n)
	for i := range out {
		out[i].At = time.Unix(from+int64(i)*step, 0).UTC()
	}
	for _, sp := range spans {
		for i := max(0, (sp[0]-from)/step); i < int64(n) && from+i*step < sp[1]; i++ {
			lo, hi := from+i*step, from+(i+1)*step
			out[i].CardSeconds += float64(min(sp[1], hi) - max(sp[0], lo))
		}
	}
	return out
}
