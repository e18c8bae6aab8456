package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// ErrConflict is returned (wrapped) when a change does not fit the task's current state.
var ErrConflict = errors.New("conflict")

// TaskRow is a task with its project's name.
type TaskRow struct {
	Task
	Project string
}

// TaskByID returns one task with its project's name.
func (s *Store) TaskByID(ctx context.Context, id int64) (TaskRow, error) {
	var t TaskRow
	err := s.db.WithContext(ctx).Table("tasks").Select("tasks.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = tasks.project_id").Where("tasks.id = ?", id).Take(&t).Error
	if err != nil {
		return t, notFound(fmt.Sprintf("task %d", id), err)
	}
	return t, nil
}

// TaskEvents returns a task's transitions, oldest first.
func (s *Store) TaskEvents(ctx context.Context, id int64) ([]TaskEvent, error) {
	var out []TaskEvent
	err := s.db.WithContext(ctx).Where("task_id = ?", id).Order("at, id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: events of task %d: %w", id, err)
	}
	return out, nil
}

// transition moves a task from one of the states in from to the state to, recording the
// event. It returns ErrConflict when the task is in none of them.
func transition(tx *gorm.DB, id int64, from []string, to, reason string, now time.Time, extra map[string]any) error {
	set := map[string]any{"state": to, "reason": reason}
	for k, v := range extra {
		set[k] = v
	}
	prev := ""
	if len(from) == 1 {
		prev = from[0] // the common case: one update, no read
	} else {
		var t Task
		if err := tx.Select("id, state").Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("task %d", id), err)
		}
		prev = t.State
		if !slices.Contains(from, prev) {
			return fmt.Errorf("models: task %d is %s: %w", id, prev, ErrConflict)
		}
	}
	res := tx.Model(&Task{}).Where("id = ? AND state = ?", id, prev).Updates(set)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		var t Task
		if err := tx.Select("id, state").Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("task %d", id), err)
		}
		return fmt.Errorf("models: task %d is %s: %w", id, t.State, ErrConflict)
	}
	if err := tx.Create(&TaskEvent{TaskID: id, At: now, From: prev, To: to, Reason: reason}).Error; err != nil {
		return err
	}
	return notifyTaskOwner(tx, id, to, reason, now)
}

// MarkTaskReady declares a waiting task's data ready; it joins the queue.
func (s *Store) MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error {
	now = UTC(now)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return transition(tx, id, []string{TaskWaitingData}, TaskQueued, reason, now, map[string]any{"data_ready": true})
	})
}

// MarkTaskReadyIn marks a task waiting for data ready because its data was found in region:
// that region becomes its data's region (the scheduler's preference) unless its data check
// names one already.
func (s *Store) MarkTaskReadyIn(ctx context.Context, id int64, region, reason string, now time.Time) error {
	now = UTC(now)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Task
		if err := forUpdate(tx).Select("id, data_check").Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("task %d", id), err)
		}
		var dc DataCheck
		if t.DataCheck != "" {
			json.Unmarshal([]byte(t.DataCheck), &dc) // written by the store; always decodes
		}
		set := map[string]any{"data_ready": true}
		if dc.Region == "" {
			dc.Region = region
			b, _ := json.Marshal(dc) // strings; never fails
			set["data_check"] = string(b)
		}
		return transition(tx, id, []string{TaskWaitingData}, TaskQueued, reason, now, set)
	})
}

// CancelTask cancels a task: at once while it waits, or by asking its node to stop it.
func (s *Store) CancelTask(ctx context.Context, id int64, by string, now time.Time) error {
	now = UTC(now)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return cancelTask(tx, id, by, now)
	})
}

// cancelTask cancels task id in tx for by, as CancelTask, and audits it.
func cancelTask(tx *gorm.DB, id int64, by string, now time.Time) error {
	reason := "cancelled by " + by
	var t Task
	if err := tx.Select("id, project_id, state").Where("id = ?", id).Take(&t).Error; err != nil {
		return notFound(fmt.Sprintf("task %d", id), err)
	}
	err := transition(tx, id, []string{TaskWaitingData, TaskQueued}, TaskCancelled, reason, now, map[string]any{"ended_at": now})
	if errors.Is(err, ErrConflict) {
		err = requestStop(tx, id, TaskCancelled, reason, now)
	}
	if err != nil {
		return err
	}
	return audit(tx, now, by, AuditTaskCancel, &t.ProjectID, fmt.Sprintf("task %d", id),
		map[string]string{"state": t.State}, map[string]string{"state": TaskCancelled})
}

// RequestStop asks the node running a task to stop it; when the process exits the task takes
// state (cancelled, timed-out or reclaimed). A second request keeps the first.
func (s *Store) RequestStop(ctx context.Context, id int64, state, reason string, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return requestStop(tx, id, state, reason, UTC(now))
	})
}

func requestStop(tx *gorm.DB, id int64, state, reason string, now time.Time) error {
	res := tx.Model(&Task{}).Where("id = ? AND state IN ? AND stop_state = ''", id, []string{TaskStarting, TaskRunning}).
		Updates(map[string]any{"stop_state": state, "stop_reason": reason, "stop_at": now})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		var t Task
		if err := tx.Select("id, state, stop_state").Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("task %d", id), err)
		}
		// A stop already asked holds while the task runs; a task that ended cannot stop.
		if t.StopState == "" || (t.State != TaskStarting && t.State != TaskRunning) {
			return fmt.Errorf("models: task %d is %s: %w", id, t.State, ErrConflict)
		}
		return nil
	}
	return taskAssignmentsChanged(tx, id)
}

// Assignments lists what a node should run: its starting and running tasks with their GPUs,
// Stop set on those asked to stop.
func (s *Store) Assignments(ctx context.Context, nodeID int64) ([]Assignment, error) {
	db := s.db.WithContext(ctx)
	// A task larger than a node holds GPUs on several; each node runs it on its own GPUs, with
	// its rank, until it exits there.
	// The node's open allocations come from their own index (idx_allocations_node_open) and
	// the tasks by primary key: a poll costs the node's few rows, not the history's.
	var onNode []int64
	if err := db.Model(&Allocation{}).Distinct("task_id").
		Where("node_id = ? AND ended_at IS NULL", nodeID).
		Where("NOT EXISTS (SELECT 1 FROM task_node_exits e WHERE e.task_id = allocations.task_id AND e.node_id = ?)", nodeID).
		Pluck("task_id", &onNode).Error; err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	if len(onNode) == 0 {
		return []Assignment{}, nil
	}
	var tasks []Task
	if err := db.Where("id IN ? AND state IN ?", onNode, []string{TaskStarting, TaskRunning}).
		Order("id").Find(&tasks).Error; err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	if len(tasks) == 0 {
		return []Assignment{}, nil
	}
	ids := make([]int64, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	var held []struct {
		TaskID int64
		UUID   string
	}
	err := db.Table("allocations").Select("allocations.task_id, gpus.uuid").Joins("JOIN gpus ON gpus.id = allocations.gpu_id").
		Where("allocations.task_id IN ? AND allocations.node_id = ? AND allocations.ended_at IS NULL", ids, nodeID).
		Order("gpus.gpu_index").Scan(&held).Error
	if err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	uuids := make(map[int64][]string)
	for _, h := range held {
		uuids[h.TaskID] = append(uuids[h.TaskID], h.UUID)
	}
	nodes, err := taskNodes(db, ids)
	if err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	cfg, err := nodePoolConfig(db, nodeID)
	if err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	accounts, err := ownerAccounts(db, tasks)
	if err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	region, err := dataRegion(db, nodeID, tasks)
	if err != nil {
		return nil, fmt.Errorf("models: assignments of node %d: %w", nodeID, err)
	}
	out := make([]Assignment, len(tasks))
	for i, t := range tasks {
		a := Assignment{TaskID: t.ID, GPUUUIDs: uuids[t.ID], Workdir: t.Workdir, Image: t.Image, MaxRuntimeS: t.MaxRuntimeS, Stop: t.StopState != "",
			MetricsPort: t.MetricsPort, MetricsPath: t.MetricsPath, HealthPath: t.HealthPath,
			Restart: t.Service(), Attempt: max(t.Attempt, 1), ResumeFrom: resumeFrom(t)}
		if t.Image != "" {
			a.Mounts = cfg.Mounts()
		}
		a.runAs(cfg, t.Owner, accounts)
		a.setShape(nodes[t.ID], nodeID)
		if loc := t.DataLocationMap()[region]; loc != "" && region != "" {
			a.DataRegion, a.DataLocation = region, loc
		}
		if err := json.Unmarshal([]byte(t.Command), &a.Command); err != nil {
			return nil, fmt.Errorf("models: command of task %d: %w", t.ID, err)
		}
		if a.Env, err = s.openEnv(t.Env); err != nil {
			return nil, fmt.Errorf("models: env of task %d: %w", t.ID, err)
		}
		out[i] = a
	}
	return out, nil
}

// ReportTaskStatus applies an agent's report about a task on its node: running, exited or
// failed to start. The exit of the task's last node (see nodeExited) ends the task and
// closes its allocations at the reported time,
// clamped between the task's start and now, and never before the report window's floor
// (MaxReportAge ago, or the end of the last issued bill's month). A report about a task that
// already ended is accepted and changes nothing (every node of a task reports, some after its
// end); one about a task that never was on this node is not found.
func (s *Store) ReportTaskStatus(ctx context.Context, nodeID, taskID int64, r TaskReport, now time.Time) error {
	now = UTC(now)
	at := UTC(r.TS)
	if r.TS.IsZero() || at.After(now) {
		at = now
	}
	if !utf8.ValidString(r.Message) || len(r.Message) > 2000 {
		return fieldErr("message", "must be valid UTF-8 of at most 2,000 bytes")
	}
	output, err := outputOf(r, now)
	if err != nil {
		return err
	}
	if err := checkCause(r); err != nil {
		return err
	}
	return s.inWriteGroup(ctx, func(tx *gorm.DB) error {
		var t Task
		// The task's allocations by its id, not the node's: the node's, ended ones included,
		// were a scan of every allocation ever made (docs/decisions.md, "The writer in
		// turns, and agents' writes committed together").
		onNode := "EXISTS (SELECT 1 FROM allocations WHERE allocations.task_id = tasks.id AND allocations.node_id = ?)"
		if err := tx.Where("id = ? AND "+onNode, taskID, nodeID).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("task %d on node %d", taskID, nodeID), err)
		}
		if stale, err := staleReport(tx, t, nodeID, r); err != nil || stale {
			return err
		}
		floor, err := reportFloor(tx, now)
		if err != nil {
			return err
		}
		if at.Before(floor) {
			at = floor
		}
		if t.StartedAt != nil && at.Before(*t.StartedAt) {
			at = *t.StartedAt
		}
		switch r.State {
		case ReportRunning:
			if !t.Live() {
				return nil // a late report of a task that already ended
			}
			if t.State == TaskRunning {
				if len(output) == 0 {
					return nil
				}
				return tx.Model(&Task{}).Where("id = ?", taskID).Updates(output).Error
			}
			return transition(tx, taskID, []string{TaskStarting}, TaskRunning, "process started", now, output)
		case ReportExited, ReportFailedToStart:
			return nodeExited(tx, t, nodeID, r, at, now, output)
		default:
			return fieldErr("state", "must be %q, %q or %q", ReportRunning, ReportExited, ReportFailedToStart)
		}
	})
}

// staleReport reports whether r, from node nodeID, is about an earlier attempt of t than
// the one it runs now (the process of an attempt that was rerun, on a node lost and back):
// it is accepted and changes nothing. Only a task rerun before can have one.
func staleReport(tx *gorm.DB, t Task, nodeID int64, r TaskReport) (bool, error) {
	if r.Attempt > 0 && r.Attempt != t.Attempt {
		return true, nil
	}
	if t.Attempt <= 1 {
		return false, nil
	}
	var n int64
	err := tx.Model(&Allocation{}).Where("task_id = ? AND node_id = ? AND attempt = ?", t.ID, nodeID, t.Attempt).Count(&n).Error
	return n == 0, err
}

// exitState is the state and reason a task ends in when its process exits.
func exitState(t Task, r TaskReport) (string, string) {
	switch {
	case r.State == ReportFailedToStart && r.Cause != "":
		return TaskFailed, causeReason(r)
	case r.State == ReportFailedToStart:
		return TaskFailed, "failed to start: " + truncate(r.Message, 400)
	case t.StopState != "":
		return t.StopState, t.StopReason
	case (r.Cause == CauseMemoryLimit && r.ExitCode != 0) || r.Cause == CausePodDeleted:
		return TaskFailed, causeReason(r)
	case r.ExitCode == 0:
		return TaskSucceeded, "exited 0"
	default:
		return TaskFailed, fmt.Sprintf("exited %d", r.ExitCode)
	}
}

// TaskFilter narrows Tasks; empty fields mean all.
type TaskFilter struct {
	Project string
	// ProjectIDs non-nil limits the tasks to those projects.
	ProjectIDs []int64
	State      string
	// Owner and Spec match exactly; States and Owners non-empty match any of theirs.
	Owner  string
	Spec   string
	States []string
	Owners []string
	// From and To bound the submit time: From ≤ submitted_at < To; zero means open.
	From, To time.Time
	// Limit caps the rows, newest first; 0 means 100. Offset skips that many first.
	Limit  int
	Offset int
}

// Tasks returns tasks matching f, newest first.
func (s *Store) Tasks(ctx context.Context, f TaskFilter) ([]TaskRow, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	if !matchable(f.Project) || !matchable(f.State) || !matchable(f.Owner) || !matchable(f.Spec) {
		return nil, nil
	}
	q := s.db.WithContext(ctx).Table("tasks").Select("tasks.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = tasks.project_id")
	if f.Project != "" {
		q = q.Where("projects.name = ?", f.Project)
	}
	if f.State != "" {
		q = q.Where("tasks.state = ?", f.State)
	}
	if f.ProjectIDs != nil {
		q = q.Where("tasks.project_id IN ?", append(f.ProjectIDs, -1))
	}
	if f.Owner != "" {
		q = q.Where("tasks.owner = ?", f.Owner)
	}
	if f.Spec != "" {
		q = q.Where("tasks.spec = ?", f.Spec)
	}
	if len(f.States) > 0 {
		q = q.Where("tasks.state IN ?", f.States)
	}
	if len(f.Owners) > 0 {
		q = q.Where("tasks.owner IN ?", f.Owners)
	}
	if !f.From.IsZero() {
		q = q.Where("tasks.submitted_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("tasks.submitted_at < ?", f.To)
	}
	var out []TaskRow
	if err := q.Order("tasks.id DESC").Limit(f.Limit).Offset(max(f.Offset, 0)).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("models: tasks: %w", err)
	}
	return out, nil
}
