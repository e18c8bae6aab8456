package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// TaskSchedule runs a template on a cron expression in a time zone. The store keeps it; the
// schedule package parses the expression and decides when runs are due.
type TaskSchedule struct {
	ID         int64
	TemplateID int64
	// Cron is a standard five-field expression, reckoned in TimeZone (an IANA name).
	Cron     string
	TimeZone string
	// Overlap is allow, skip or replace (schedule.Overlap).
	Overlap string
	// StartDeadlineS is how late after its planned time a run may still start.
	StartDeadlineS int64
	Suspended      bool
	// SuspendedWhy says why Kashi suspended it (OwnerMissing, OwnerDisabled, OwnerLeft);
	// empty when a lead did.
	SuspendedWhy string
	// Owner owns the tasks the schedule submits: who created it.
	Owner string
	// LastPlannedAt settles the runs planned up to it; the next run is the first after it.
	LastPlannedAt time.Time
	CreatedAt     time.Time
}

func (TaskSchedule) TableName() string { return "task_schedules" }

// ScheduleRun is one planned run of a schedule and what became of it.
type ScheduleRun struct {
	ID         int64
	ScheduleID int64
	PlannedAt  time.Time
	// TemplateVersion is the version the run submits, fixed when the run is claimed so a
	// repeated submit after a crash sends the same request.
	TemplateVersion int
	TaskID          *int64
	// PipelineID is the pipeline the run submitted, for a pipeline template's schedule.
	PipelineID *int64
	Outcome    string
	Detail     string
	At         time.Time
}

func (ScheduleRun) TableName() string { return "schedule_runs" }

// Outcomes of a schedule run.
const (
	// RunPending: claimed, not yet submitted (a crash between the two is finished later).
	RunPending   = "pending"
	RunSubmitted = "submitted"
	// RunSkipped: the last run was still active and the schedule skips overlaps.
	RunSkipped = "skipped"
	// RunMissed: the server was down past the run's start deadline.
	RunMissed = "missed"
	// RunFailed: the submit was refused (the template no longer fits the fleet, say).
	RunFailed = "failed"
)

// ScheduleRunRow is a run with the state of its task ("" without one).
type ScheduleRunRow struct {
	ScheduleRun
	TaskState string
}

// Schedule bounds.
const (
	MinStartDeadline = time.Minute
	MaxStartDeadline = 7 * 24 * time.Hour
	// MaxSchedulesPerProject bounds the schedules of a project's templates.
	MaxSchedulesPerProject = 20
	// MaxScheduleWaiting bounds the tasks of one schedule that wait at once: a run due while
	// that many still wait is skipped, whatever the schedule's overlap.
	MaxScheduleWaiting = 3
)

// CreateSchedule stores a schedule of a template; runs are planned from now. The caller has
// parsed Cron in TimeZone. A template that names env variables cannot be scheduled: nobody
// is there to give their values.
func (s *Store) CreateSchedule(ctx context.Context, ts TaskSchedule, now time.Time) (TaskSchedule, error) {
	now = UTC(now)
	var ps Problems
	if len(ts.Cron) > 100 {
		ps.Add(fieldErr("cron", "at most 100 bytes"))
	}
	if ts.Overlap != "allow" && ts.Overlap != "skip" && ts.Overlap != "replace" {
		ps.Add(fieldErr("overlap", "must be allow, skip or replace, got %q", truncate(ts.Overlap, 20)))
	}
	if ts.StartDeadlineS < int64(MinStartDeadline/time.Second) || ts.StartDeadlineS > int64(MaxStartDeadline/time.Second) {
		ps.Add(fieldErr("start_deadline_s", "must be between %d and %d seconds, got %d",
			int64(MinStartDeadline/time.Second), int64(MaxStartDeadline/time.Second), ts.StartDeadlineS))
	}
	ps.Add(checkName("owner", ts.Owner, 100))
	if err := ps.Err(); err != nil {
		return ts, err
	}
	tpl, err := s.TemplateByID(ctx, ts.TemplateID)
	if err != nil {
		return ts, err
	}
	if names := tpl.Fields().EnvNames; len(names) > 0 {
		return ts, fieldErr("template", "names env variables (%s); a schedule cannot give their values", names[0])
	}
	ts.ID, ts.Suspended, ts.SuspendedWhy, ts.LastPlannedAt, ts.CreatedAt = 0, false, "", now, now
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The project's row is locked: two creates at once cannot both take the last place.
		if err := forUpdate(tx).Select("id").Where("id = ?", tpl.ProjectID).Take(&Project{}).Error; err != nil {
			return err
		}
		var n int64
		err := tx.Model(&TaskSchedule{}).Joins("JOIN task_templates ON task_templates.id = task_schedules.template_id").
			Where("task_templates.project_id = ?", tpl.ProjectID).Count(&n).Error
		if err != nil {
			return err
		}
		if n >= MaxSchedulesPerProject {
			return fieldErr("template", "the project has %d schedules, the most it may have", n)
		}
		if tpl.Fields().IsPipeline() {
			if err := checkPipelineSchedule(tx, tpl, ts); err != nil {
				return err
			}
		}
		return tx.Create(&ts).Error
	})
	var fe *FieldError
	if errors.As(err, &fe) {
		return ts, err
	}
	if err != nil {
		return ts, fmt.Errorf("models: create schedule: %w", err)
	}
	return ts, nil
}

// ScheduleWaiting counts the schedule's tasks that still wait (for data or in the queue).
func (s *Store) ScheduleWaiting(ctx context.Context, scheduleID int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Table("schedule_runs").Joins("JOIN tasks ON tasks.id = schedule_runs.task_id").
		Where("schedule_runs.schedule_id = ? AND tasks.state IN ?", scheduleID, []string{TaskWaitingData, TaskQueued}).Count(&n).Error
	if err != nil {
		return 0, fmt.Errorf("models: waiting tasks of schedule %d: %w", scheduleID, err)
	}
	return n, nil
}

// NoteScheduleSuspended is the notification kind of a schedule Kashi suspended; its key is
// schedule-suspended:<schedule>:<owner>.
const NoteScheduleSuspended = "schedule-suspended"

// SuspendIfOwnerGone suspends a schedule whose owner may no longer submit to its project — the
// owner is gone, disabled, or (not an admin) no longer a member — and tells the owner and the
// project's leads, in one transaction. A schedule acts for its owner: it must not outlive the
// owner's right. It reports whether it suspended the schedule.
func (s *Store) SuspendIfOwnerGone(ctx context.Context, ts TaskSchedule, now time.Time) (bool, error) {
	suspended := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var tpl TaskTemplate
		if err := tx.Select("id", "project_id").Where("id = ?", ts.TemplateID).Take(&tpl).Error; err != nil {
			return err
		}
		why, err := ownerGone(tx, ts.Owner, tpl.ProjectID)
		if err != nil || why == "" {
			return err
		}
		res := tx.Model(&TaskSchedule{}).Where("id = ? AND NOT suspended", ts.ID).
			Updates(map[string]any{"suspended": true, "suspended_why": why})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		suspended = true
		var ids []int64
		if err := tx.Model(&ProjectMember{}).Where("project_id = ? AND role = ?", tpl.ProjectID, ProjectRoleLead).Pluck("user_id", &ids).Error; err != nil {
			return err
		}
		var owner User
		if err := tx.Select("id").Scopes(textIs("name", ts.Owner)).Take(&owner).Error; err == nil {
			ids = append(ids, owner.ID)
		}
		return notify(tx, ids, fmt.Sprintf("%s:%d:%s", NoteScheduleSuspended, ts.ID, ts.Owner), NoteScheduleSuspended,
			fmt.Sprintf("schedule %d suspended: %s", ts.ID, ownerGoneErr(why, ts.Owner)), now)
	})
	if err != nil {
		return false, fmt.Errorf("models: schedule %d's owner: %w", ts.ID, err)
	}
	return suspended, nil
}

// Why Kashi suspends a schedule (TaskSchedule.SuspendedWhy): its owner no longer exists, is
// disabled, or has left the project.
const (
	OwnerMissing  = "owner-missing"
	OwnerDisabled = "owner-disabled"
	OwnerLeft     = "owner-left"
)

// ownerGone says why owner may not submit to project (OwnerMissing, OwnerDisabled,
// OwnerLeft), or "" when they may.
func ownerGone(tx *gorm.DB, owner string, projectID int64) (string, error) {
	var u User
	err := tx.Scopes(textIs("name", owner)).Take(&u).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return OwnerMissing, nil
	case err != nil:
		return "", err
	case u.Disabled:
		return OwnerDisabled, nil
	case u.Role == RoleAdmin:
		return "", nil
	}
	var n int64
	if err := tx.Model(&ProjectMember{}).Where("project_id = ? AND user_id = ?", projectID, u.ID).Count(&n).Error; err != nil {
		return "", err
	}
	if n == 0 {
		return OwnerLeft, nil
	}
	return "", nil
}

// ownerGoneErr is why as the field error of a run that can no longer be submitted; its
// message goes to chat as well.
func ownerGoneErr(why, owner string) error {
	switch why {
	case OwnerMissing:
		return fieldErr("owner", "the schedule's owner %s no longer exists", owner)
	case OwnerDisabled:
		return fieldErr("owner", "the schedule's owner %s is disabled", owner)
	}
	return fieldErr("owner", "the schedule's owner %s is no longer a member of the project", owner)
}

// ScheduleByID returns a schedule.
func (s *Store) ScheduleByID(ctx context.Context, id int64) (TaskSchedule, error) {
	var ts TaskSchedule
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&ts).Error; err != nil {
		return ts, notFound(fmt.Sprintf("schedule %d", id), err)
	}
	return ts, nil
}

// Schedules returns a template's schedules, oldest first.
func (s *Store) Schedules(ctx context.Context, templateID int64) ([]TaskSchedule, error) {
	var out []TaskSchedule
	if err := s.db.WithContext(ctx).Where("template_id = ?", templateID).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: schedules of template %d: %w", templateID, err)
	}
	return out, nil
}

// ActiveSchedules returns every schedule not suspended.
func (s *Store) ActiveSchedules(ctx context.Context) ([]TaskSchedule, error) {
	var out []TaskSchedule
	if err := s.db.WithContext(ctx).Where("NOT suspended").Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: active schedules: %w", err)
	}
	return out, nil
}

// SetScheduleSuspended suspends or resumes a schedule. Resuming plans from now: runs that
// fell while it was suspended never start.
func (s *Store) SetScheduleSuspended(ctx context.Context, id int64, suspended bool, now time.Time) error {
	q := s.db.WithContext(ctx).Model(&TaskSchedule{}).Where("id = ? AND suspended = ?", id, !suspended)
	set := map[string]any{"suspended": suspended, "suspended_why": ""}
	if !suspended {
		set["last_planned_at"] = UTC(now)
	}
	res := q.Updates(set)
	if res.Error != nil {
		return fmt.Errorf("models: suspend schedule %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		if _, err := s.ScheduleByID(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// ScheduleRuns returns a schedule's latest runs, newest first, with their tasks' states.
func (s *Store) ScheduleRuns(ctx context.Context, scheduleID int64, limit int) ([]ScheduleRunRow, error) {
	var out []ScheduleRunRow
	err := s.db.WithContext(ctx).Table("schedule_runs").
		Select("schedule_runs.*, COALESCE(tasks.state, '') AS task_state").
		Joins("LEFT JOIN tasks ON tasks.id = schedule_runs.task_id").
		Where("schedule_runs.schedule_id = ?", scheduleID).Order("schedule_runs.planned_at DESC").Limit(limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: runs of schedule %d: %w", scheduleID, err)
	}
	return out, nil
}

// ScheduleLastTask returns the task of the schedule's latest run that has one, and its
// state; found is false when no run has a task yet.
func (s *Store) ScheduleLastTask(ctx context.Context, scheduleID int64) (taskID int64, state string, found bool, err error) {
	var rows []ScheduleRunRow
	err = s.db.WithContext(ctx).Table("schedule_runs").
		Select("schedule_runs.*, tasks.state AS task_state").
		Joins("JOIN tasks ON tasks.id = schedule_runs.task_id").
		Where("schedule_runs.schedule_id = ?", scheduleID).Order("schedule_runs.planned_at DESC").Limit(1).Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return 0, "", false, err
	}
	return *rows[0].TaskID, rows[0].TaskState, true, nil
}

// ClaimScheduleRun settles a schedule's runs through the given time and records run (its
// PlannedAt, Outcome and Detail), atomically and only while the schedule's last planned
// time is still prev and it is not suspended: of two passes only one claims, and a claimed
// run is recorded once. The run takes the template's current version.
func (s *Store) ClaimScheduleRun(ctx context.Context, ts TaskSchedule, through time.Time, run ScheduleRun, now time.Time) (ScheduleRun, bool, error) {
	claimed := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&TaskSchedule{}).Where("id = ? AND last_planned_at = ? AND NOT suspended", ts.ID, UTC(ts.LastPlannedAt)).
			Update("last_planned_at", UTC(through))
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		var tpl TaskTemplate
		if err := tx.Select("version").Where("id = ?", ts.TemplateID).Take(&tpl).Error; err != nil {
			return err
		}
		run.ID, run.ScheduleID, run.PlannedAt, run.TemplateVersion, run.At = 0, ts.ID, UTC(run.PlannedAt), tpl.Version, UTC(now)
		claimed = true
		return tx.Create(&run).Error
	})
	if err != nil {
		return run, false, fmt.Errorf("models: claim run of schedule %d: %w", ts.ID, err)
	}
	return run, claimed, nil
}

// PendingScheduleRuns returns the claimed runs not yet submitted, oldest first.
func (s *Store) PendingScheduleRuns(ctx context.Context) ([]ScheduleRun, error) {
	var out []ScheduleRun
	if err := s.db.WithContext(ctx).Where("outcome = ?", RunPending).Order("planned_at, id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: pending schedule runs: %w", err)
	}
	return out, nil
}

// FinishScheduleRun records a pending run's outcome and task; an empty detail keeps the one
// the claim wrote.
func (s *Store) FinishScheduleRun(ctx context.Context, id int64, taskID *int64, outcome, detail string, now time.Time) error {
	set := map[string]any{"task_id": taskID, "outcome": outcome, "at": UTC(now)}
	if detail != "" {
		set["detail"] = truncate(detail, 400)
	}
	err := s.db.WithContext(ctx).Model(&ScheduleRun{}).Where("id = ? AND outcome = ?", id, RunPending).Updates(set).Error
	if err != nil {
		return fmt.Errorf("models: finish schedule run %d: %w", id, err)
	}
	return nil
}

// ScheduleSubmission is the task a run submits: its template's version as the run fixed it,
// owned by the schedule's owner, with an idempotency key of the schedule and the planned
// time, so a restart never submits a run twice.
func (s *Store) ScheduleSubmission(ctx context.Context, run ScheduleRun) (NewTask, error) {
	ts, err := s.ScheduleByID(ctx, run.ScheduleID)
	if err != nil {
		return NewTask{}, err
	}
	tpl, err := s.TemplateByID(ctx, ts.TemplateID)
	if err != nil {
		return NewTask{}, err
	}
	var p Project
	if err := s.db.WithContext(ctx).Where("id = ?", tpl.ProjectID).Take(&p).Error; err != nil {
		return NewTask{}, notFound(fmt.Sprintf("project %d", tpl.ProjectID), err)
	}
	if why, err := ownerGone(s.db.WithContext(ctx), ts.Owner, p.ID); err != nil || why != "" {
		if err != nil {
			return NewTask{}, err
		}
		return NewTask{}, ownerGoneErr(why, ts.Owner)
	}
	v, err := s.TemplateVersion(ctx, ts.TemplateID, run.TemplateVersion)
	if err != nil {
		return NewTask{}, err
	}
	body := v.Fields()
	if missing := body.MissingEnv(nil); missing != "" {
		return NewTask{}, fieldErr("template", "names env %s; a schedule cannot give its value", missing)
	}
	loc, err := time.LoadLocation(ts.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	nt := body.NewTask(p.Name, tpl.Name+" "+run.PlannedAt.In(loc).Format("2006-01-02 15:04"), ts.Owner, nil)
	nt.TemplateID, nt.TemplateVersion = ts.TemplateID, run.TemplateVersion
	nt.IdempotencyKey = fmt.Sprintf("schedule:%d/%s", ts.ID, UTC(run.PlannedAt).Format(time.RFC3339))
	nt.IdempotencyScope = fmt.Sprintf("schedule:%d", ts.ID)
	return nt, nil
}

// SubmitSchedulePipeline submits a pending run of a pipeline template's schedule: in one
// transaction it takes the run (locked: of two loops, the second finds it no longer
// pending and submits nothing), submits the pipeline of the template's version as the run
// fixed it, owned by the schedule's owner and named after the template and the planned time
// in the schedule's zone, and records the run submitted with its pipeline. isPipeline is
// false, and nothing is done, for a task template's run. A refused pipeline is a
// FieldError, and the run stays pending for the caller to record it failed.
func (s *Store) SubmitSchedulePipeline(ctx context.Context, run ScheduleRun, lim TaskLimits, now time.Time) (pipelineID int64, isPipeline bool, err error) {
	now = UTC(now)
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r ScheduleRun
		if err := forUpdate(tx).Where("id = ?", run.ID).Take(&r).Error; err != nil {
			return notFound(fmt.Sprintf("schedule run %d", run.ID), err)
		}
		var ts TaskSchedule
		if err := tx.Where("id = ?", r.ScheduleID).Take(&ts).Error; err != nil {
			return notFound(fmt.Sprintf("schedule %d", r.ScheduleID), err)
		}
		var tpl TaskTemplate
		if err := tx.Where("id = ?", ts.TemplateID).Take(&tpl).Error; err != nil {
			return notFound(fmt.Sprintf("template %d", ts.TemplateID), err)
		}
		var v TaskTemplateVersion
		if err := tx.Where("template_id = ? AND version = ?", tpl.ID, r.TemplateVersion).Take(&v).Error; err != nil {
			return notFound(fmt.Sprintf("template %d version %d", tpl.ID, r.TemplateVersion), err)
		}
		body := v.Fields()
		if isPipeline = body.IsPipeline(); !isPipeline || r.Outcome != RunPending {
			return nil
		}
		var p Project
		if err := tx.Where("id = ?", tpl.ProjectID).Take(&p).Error; err != nil {
			return notFound(fmt.Sprintf("project %d", tpl.ProjectID), err)
		}
		if why, err := ownerGone(tx, ts.Owner, p.ID); err != nil || why != "" {
			if err != nil {
				return err
			}
			return ownerGoneErr(why, ts.Owner)
		}
		loc, err := time.LoadLocation(ts.TimeZone)
		if err != nil {
			loc = time.UTC
		}
		pipe, err := s.createPipeline(tx, body.NewPipeline(p.Name, tpl.Name+" "+r.PlannedAt.In(loc).Format("2006-01-02 15:04"), ts.Owner), lim, now)
		if err != nil {
			return err
		}
		pipelineID = pipe.ID
		return tx.Model(&ScheduleRun{}).Where("id = ?", r.ID).
			Updates(map[string]any{"pipeline_id": pipe.ID, "outcome": RunSubmitted, "at": now}).Error
	})
	if err != nil {
		if AllFieldErrors(err) != nil || errors.Is(err, ErrNotFound) {
			return 0, isPipeline, err
		}
		return 0, isPipeline, fmt.Errorf("models: submit run %d of a pipeline schedule: %w", run.ID, err)
	}
	return pipelineID, isPipeline, nil
}

// ScheduleLastPipeline returns the pipeline of the schedule's latest run that submitted one,
// and its state; found is false when none did.
func (s *Store) ScheduleLastPipeline(ctx context.Context, scheduleID int64) (pipelineID int64, state string, found bool, err error) {
	var rows []struct {
		ID    int64
		State string
	}
	err = s.db.WithContext(ctx).Table("schedule_runs").Select("pipelines.id, pipelines.state").
		Joins("JOIN pipelines ON pipelines.id = schedule_runs.pipeline_id").
		Where("schedule_runs.schedule_id = ?", scheduleID).Order("schedule_runs.planned_at DESC").Limit(1).Scan(&rows).Error
	if err != nil {
		return 0, "", false, fmt.Errorf("models: last pipeline of schedule %d: %w", scheduleID, err)
	}
	if len(rows) == 0 {
		return 0, "", false, nil
	}
	return rows[0].ID, rows[0].State, true, nil
}
