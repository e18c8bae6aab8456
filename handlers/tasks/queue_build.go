package tasks

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// queueState is the queue at one moment: the scheduler's view and the active tasks' rows.
type queueState struct {
	view scheduler.QueueView
	rows map[int64]models.TaskRow
}

// loadQueue asks the scheduler for the queue at now and reads the tasks it names. Both are
// reads; nothing is stored.
func (h *Handler) loadQueue(ctx context.Context, now time.Time) (queueState, error) {
	view, err := h.Sched.Queue(ctx, now)
	if err != nil {
		return queueState{}, err
	}
	active, err := h.store.ActiveTasks(ctx)
	if err != nil {
		return queueState{}, err
	}
	st := queueState{view: view, rows: make(map[int64]models.TaskRow, len(active))}
	for _, t := range active {
		st.rows[t.ID] = t
	}
	return st, nil
}

// entries are the view's entries with their tasks' rows, in queue order, then the pending
// tasks submitted since the view was made (ReasonNew), oldest first. A task that started or
// ended between the two reads is left out: it no longer waits.
func (st queueState) entries(yield func(scheduler.QueueEntry, models.TaskRow) bool) {
	seen := make(map[int64]bool, len(st.view.Entries))
	for _, e := range st.view.Entries {
		seen[e.TaskID] = true
		r, ok := st.rows[e.TaskID]
		if !ok || !pending(r) {
			continue
		}
		if !yield(e, r) {
			return
		}
	}
	var fresh []models.TaskRow
	for _, r := range st.rows {
		if pending(r) && !seen[r.ID] {
			fresh = append(fresh, r)
		}
	}
	slices.SortFunc(fresh, func(a, b models.TaskRow) int {
		return cmp.Or(a.SubmittedAt.Compare(b.SubmittedAt), cmp.Compare(a.ID, b.ID))
	})
	for _, r := range fresh {
		lane := r.Queue
		if r.Service() {
			lane = models.QueueService
		}
		if !yield(scheduler.QueueEntry{Waiting: scheduler.Waiting{TaskID: r.ID, Lane: lane, Reason: scheduler.ReasonNew}}, r) {
			return
		}
	}
}

// pending is true for a task that waits in the queue.
func pending(r models.TaskRow) bool {
	return r.State == models.TaskQueued || r.State == models.TaskWaitingData
}

// queueData builds the queue page's data at now around form, whose choices it fills: the
// projects who may submit to, the one preselected when there is one, else their last used.
func (h *Handler) queueData(ctx context.Context, who *handlers.Principal, now time.Time, form tasksview.TaskForm) (tasksview.QueueData, error) {
	st, err := h.loadQueue(ctx, now)
	if err != nil {
		return tasksview.QueueData{}, err
	}
	names, err := h.store.NodeNames(ctx)
	if err != nil {
		return tasksview.QueueData{}, err
	}
	projects, err := h.store.Projects(ctx)
	if err != nil {
		return tasksview.QueueData{}, err
	}
	d := tasksview.QueueData{Now: now, Lanes: []tasksview.QueueLane{{Name: views.LaneShort}, {Name: views.LaneLong}, {Name: views.LaneService}}}
	for e, r := range st.entries {
		lane := &d.Lanes[1]
		switch e.Lane {
		case models.QueueShort:
			lane = &d.Lanes[0]
		case models.QueueService:
			lane = &d.Lanes[2]
		}
		lane.Rows = append(lane.Rows, queueRow(e, r, now))
	}
	for _, r := range st.rows {
		if r.State != models.TaskStarting && r.State != models.TaskRunning {
			continue
		}
		t := tasksview.RunningTask{TaskID: r.ID, Name: r.Name, Project: r.Project, Owner: r.Owner, GPUs: r.GPUs, Spec: r.Spec,
			StartedAt: r.SubmittedAt}
		if r.StartedAt != nil {
			t.StartedAt = *r.StartedAt
		}
		if r.NodeID != nil {
			t.Node = names[*r.NodeID]
		}
		d.Running = append(d.Running, t)
	}
	slices.SortFunc(d.Running, func(a, b tasksview.RunningTask) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.TaskID, b.TaskID))
	})
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return tasksview.QueueData{}, err
	}
	for _, c := range st.view.Capacity {
		d.Capacity = append(d.Capacity, tasksview.SpecCapacity{Spec: c.Spec, Region: c.Region, Total: c.Total, Held: c.Held,
			Free: c.Free, Booked: c.Booked, BookedFor: c.BookedFor, LargestFree: c.LargestFree, ShortReserve: c.ShortReserve,
			ShortReserveHeld: c.ShortReserveHeld, Pools: handlers.PlaceAttrs(pools, c.Spec, c.Region)})
	}
	form.Specs = capacitySpecs(st.view, form.Specs)
	if form.Regions, err = h.store.PoolRegions(ctx); err != nil {
		return tasksview.QueueData{}, err
	}
	for _, p := range projects {
		if who.CanRun(p.ID) {
			form.Projects = append(form.Projects, p.Name)
		}
	}
	form.Closed = len(form.Projects) == 0
	if form.Values.Project == "" {
		if form.Values.Project, err = h.lastProject(ctx, who, form.Projects); err != nil {
			return tasksview.QueueData{}, err
		}
	}
	if slices.Contains(form.Projects, form.Values.Project) {
		if form.Access, err = h.specAccess(ctx, st.view, form.Values.Project, form.Specs, now); err != nil {
			return tasksview.QueueData{}, err
		}
	}
	form.ShortMax, form.LongMax = h.Cfg.TaskLimits.ShortMaxRuntime, h.Cfg.TaskLimits.LongMaxRuntime
	form.Demo = h.Cfg.Demo
	form.PathChecks = len(h.store.DataRoots()) > 0
	form.Priorities = models.Priorities
	d.Form = form
	return d, nil
}

// capacitySpecs are the specs the submit form offers: those with cards (the view's
// capacity), with specs (the ones already ticked) kept, in name order.
func capacitySpecs(view scheduler.QueueView, specs []string) []string {
	for _, c := range view.Capacity {
		if !slices.Contains(specs, c.Spec) {
			specs = append(specs, c.Spec)
		}
	}
	slices.Sort(specs)
	return specs
}

// specAccess says what project may use of each of specs at now (models.SpecAccesses, as
// submit and the scheduler apply it), with the cards of each it holds in view; nil for no
// project or an unknown one (the form says what is wrong with it).
func (h *Handler) specAccess(ctx context.Context, view scheduler.QueueView, project string, specs []string, now time.Time) ([]views.SpecAccess, error) {
	if project == "" {
		return nil, nil
	}
	p, err := h.store.ProjectByName(ctx, project)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	quotas, err := h.store.Quotas(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	return handlers.SpecAccessViews(models.SpecAccesses(quotas, p.ID, specs, models.NoQuotaRules(pools), now), view.Use[project]), nil
}

// lastProject is the project a new form preselects: the only one the caller may submit to,
// else the project of their latest task among those; "" when neither.
func (h *Handler) lastProject(ctx context.Context, who *handlers.Principal, runnable []string) (string, error) {
	if len(runnable) == 1 {
		return runnable[0], nil
	}
	last, err := h.store.Tasks(ctx, models.TaskFilter{Owner: who.User.Name, ProjectIDs: handlers.VisibleProjects(who), Limit: 1})
	if err != nil || len(last) == 0 || !slices.Contains(runnable, last[0].Project) {
		return "", err
	}
	return last[0].Project, nil
}
