package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"kashi/models"
)

// Store is what the Runner needs of models.Store.
type Store interface {
	ActiveSchedules(ctx context.Context) ([]models.TaskSchedule, error)
	ScheduleLastTask(ctx context.Context, scheduleID int64) (taskID int64, state string, found bool, err error)
	ClaimScheduleRun(ctx context.Context, ts models.TaskSchedule, through time.Time, run models.ScheduleRun, now time.Time) (models.ScheduleRun, bool, error)
	PendingScheduleRuns(ctx context.Context) ([]models.ScheduleRun, error)
	FinishScheduleRun(ctx context.Context, id int64, taskID *int64, outcome, detail string, now time.Time) error
	ScheduleSubmission(ctx context.Context, run models.ScheduleRun) (models.NewTask, error)
	CreateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits, now time.Time) (models.Task, bool, error)
	CancelTask(ctx context.Context, id int64, by string, now time.Time) error
	SuspendIfOwnerGone(ctx context.Context, ts models.TaskSchedule, now time.Time) (bool, error)
	ScheduleWaiting(ctx context.Context, scheduleID int64) (int64, error)
	ScheduleLastPipeline(ctx context.Context, scheduleID int64) (pipelineID int64, state string, found bool, err error)
	SubmitSchedulePipeline(ctx context.Context, run models.ScheduleRun, lim models.TaskLimits, now time.Time) (pipelineID int64, isPipeline bool, err error)
}

// Config is the Runner's settings.
type Config struct {
	// Limits bound the tasks runs submit, as for the API.
	Limits models.TaskLimits
	Now    func() time.Time
	Logger *slog.Logger
	// OnSubmit wakes the scheduler after a pass submitted tasks; nil for none.
	OnSubmit func()
}

// Runner is the schedule loop: each pass decides every active schedule (Decide) and applies
// the plan through the store, submitting as the API does.
type Runner struct {
	store Store
	cfg   Config
}

// NewRunner returns a Runner over store.
func NewRunner(store Store, cfg Config) *Runner {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Runner{store: store, cfg: cfg}
}

// Tick is one pass at the configured clock's now (loop.Set.Every's function).
func (r *Runner) Tick(ctx context.Context) error { return r.RunOnce(ctx, r.cfg.Now()) }

// RunOnce is one pass at now:
//  1. snapshot: the active schedules and whether each one's last task is still active;
//  2. decide: Decide per schedule;
//  3. apply: cancel what a replace replaces, then claim the run (settling the schedule
//     through it, atomically, so a second pass or replica claims nothing);
//  4. submit every pending run — this pass's and any a crash left — with the idempotency key
//     of the schedule and planned time, or for a pipeline template in the transaction that
//     records the run submitted, so a run is never submitted twice.
func (r *Runner) RunOnce(ctx context.Context, now time.Time) error {
	schedules, err := r.store.ActiveSchedules(ctx)
	if err != nil {
		return err
	}
	for _, ts := range schedules {
		if err := r.decideAndClaim(ctx, ts, now); err != nil {
			return err
		}
	}
	return r.submitPending(ctx, now)
}

// decideAndClaim decides one schedule at now and claims its run. A schedule acts for its
// owner: one whose owner may no longer submit to the project is suspended instead.
func (r *Runner) decideAndClaim(ctx context.Context, ts models.TaskSchedule, now time.Time) error {
	if gone, err := r.store.SuspendIfOwnerGone(ctx, ts, now); err != nil || gone {
		if gone {
			r.cfg.Logger.Warn("schedule suspended: its owner may no longer submit", "schedule", ts.ID, "owner", ts.Owner)
		}
		return err
	}
	s, err := Parse(ts.Cron, ts.TimeZone)
	if err != nil { // stored after parsing; only a zone database without the zone gets here
		r.cfg.Logger.Error("schedule cannot be parsed", "schedule", ts.ID, "err", err)
		return nil
	}
	taskID, state, found, err := r.store.ScheduleLastTask(ctx, ts.ID)
	if err != nil {
		return err
	}
	pipeID, pipeState, pipeFound, err := r.store.ScheduleLastPipeline(ctx, ts.ID)
	if err != nil {
		return err
	}
	pipeActive := pipeFound && pipeState == models.PipelineRunning
	plan := Decide(s, Policy{Overlap: Overlap(ts.Overlap), Deadline: time.Duration(ts.StartDeadlineS) * time.Second},
		ts.LastPlannedAt, now, found && active(state) || pipeActive)
	run := models.ScheduleRun{PlannedAt: plan.Planned, Outcome: models.RunPending}
	if plan.Action == ActionSubmit {
		waiting, err := r.store.ScheduleWaiting(ctx, ts.ID)
		if err != nil {
			return err
		}
		if waiting >= models.MaxScheduleWaiting {
			plan.Action = ActionSkip
			run.Outcome, run.Detail = models.RunSkipped, fmt.Sprintf("%d of its tasks still wait", waiting)
		}
	}
	switch plan.Action {
	case ActionNone:
		return nil
	case ActionSkip:
		switch {
		case run.Outcome != models.RunPending:
		case pipeActive:
			run.Outcome, run.Detail = models.RunSkipped, fmt.Sprintf("pipeline %d was still running", pipeID)
		default:
			run.Outcome, run.Detail = models.RunSkipped, fmt.Sprintf("task %d was still %s", taskID, state)
		}
	case ActionMissed:
		run.Outcome, run.Detail = models.RunMissed, "the server was down past the start deadline"
	case ActionReplace:
		err := r.store.CancelTask(ctx, taskID, fmt.Sprintf("schedule %d (replaced by the next run)", ts.ID), now)
		if err != nil && !errors.Is(err, models.ErrConflict) {
			return err
		}
		run.Detail = fmt.Sprintf("replaces task %d", taskID)
	}
	if plan.Dropped > 0 {
		if run.Detail != "" {
			run.Detail += "; "
		}
		run.Detail += fmt.Sprintf("%d earlier runs missed while the server was down", plan.Dropped)
	}
	_, _, err = r.store.ClaimScheduleRun(ctx, ts, plan.Through, run, now)
	return err
}

// submitPending submits every claimed run not yet submitted.
func (r *Runner) submitPending(ctx context.Context, now time.Time) error {
	runs, err := r.store.PendingScheduleRuns(ctx)
	if err != nil {
		return err
	}
	submitted := 0
	for _, run := range runs {
		// A pipeline template's run is submitted and recorded in one transaction; a task
		// template's through the task's idempotency key.
		pipeID, isPipeline, err := r.store.SubmitSchedulePipeline(ctx, run, r.cfg.Limits, now)
		var nt models.NewTask
		if err == nil && !isPipeline {
			nt, err = r.store.ScheduleSubmission(ctx, run)
		}
		var t models.Task
		if err == nil && !isPipeline {
			t, _, err = r.store.CreateTask(ctx, nt, r.cfg.Limits, now)
		}
		var fe *models.FieldError
		switch {
		case errors.As(err, &fe):
			err = r.store.FinishScheduleRun(ctx, run.ID, nil, models.RunFailed, fe.Error(), now)
		case err == nil && isPipeline:
			if pipeID != 0 {
				submitted++
			}
		case err == nil:
			submitted++
			err = r.store.FinishScheduleRun(ctx, run.ID, &t.ID, models.RunSubmitted, "", now)
		}
		if err != nil {
			return err
		}
	}
	if submitted > 0 && r.cfg.OnSubmit != nil {
		r.cfg.OnSubmit()
	}
	return nil
}

// active reports whether a task in state still waits or runs.
func active(state string) bool {
	switch state {
	case models.TaskWaitingData, models.TaskQueued, models.TaskStarting, models.TaskRunning:
		return true
	}
	return false
}
