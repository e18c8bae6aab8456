package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Attempts a task may have: a task whose node is lost (its machine hung, cut off or taken
// back by the cloud) is queued again at the head of its lane and resumes from its last
// checkpoint, until it has had MaxAttempts runs; one that exits non-zero by itself is rerun
// only when it asked to be (RerunOnFailure). A stop someone asked for (a cancel, the max
// runtime, an idle reclaim) is never rerun.
const (
	// DefaultMaxAttempts is a task's attempts when neither it nor its template says.
	DefaultMaxAttempts = 2
	// MaxMaxAttempts is the most attempts a task may ask for.
	MaxMaxAttempts = 10
)

// checkAttempts validates the attempts nt asks for and returns them (0 asks the default). A
// service's replicas are started again on their node and are never rerun.
func checkAttempts(nt NewTask) (int, error) {
	n := nt.MaxAttempts
	if nt.Kind == TaskKindService {
		switch {
		case n > 1:
			return 0, fieldErr("max_attempts", "a service's replicas restart on their node; a service has 1 attempt, got %d", n)
		case nt.RerunOnFailure:
			return 0, fieldErr("rerun_on_failure", "a service's replicas restart on their node; a service is not rerun")
		}
		return 1, nil
	}
	if n == 0 {
		return DefaultMaxAttempts, nil
	}
	if err := checkRange("max_attempts", int64(n), 1, MaxMaxAttempts); err != nil {
		return 0, err
	}
	return n, nil
}

// rerunReason is the reason a task is queued again for attempt next of most, after its last
// attempt ended for why.
func rerunReason(why string, next, most int) string {
	return fmt.Sprintf("requeued for attempt %d of %d: %s", next, most, why)
}

// lastAttemptReason is the reason a task ends when its attempt, the last it may have, ended
// for a cause that would have rerun it.
func lastAttemptReason(why string, attempt, most int) string {
	return fmt.Sprintf("%s; no attempt left (%d of %d)", why, attempt, most)
}

// rerunsLeft reports whether t, in the attempt it runs, may be run again.
func rerunsLeft(t Task) bool { return t.Attempt < t.MaxAttempts }

// rerun ends t's running attempt at at, its cards given back then (never before they were
// given), because of ending (EndLost or EndFailed) for why, and queues the task again for its
// next attempt, at the head of its lane: the attempt is recorded with the checkpoint the next
// one resumes from, and its allocations' seconds since that checkpoint (all of them without
// one in the attempt) become the ledger's rerun class. The caller holds t's row and checked
// rerunsLeft.
func rerun(tx *gorm.DB, t Task, ending, why string, at, now time.Time) error {
	if err := closeAllocations(tx, t.ID, 0, at); err != nil {
		return err
	}
	of := tx.Model(&Allocation{}).Where("task_id = ? AND attempt = ?", t.ID, t.Attempt)
	if err := of.Update("rerun_from", gorm.Expr("started_at")).Error; err != nil {
		return err
	}
	if cp := t.LastCheckpointAt; cp != nil {
		err := tx.Model(&Allocation{}).Where("task_id = ? AND attempt = ? AND started_at < ?", t.ID, t.Attempt, *cp).
			Update("rerun_from", gorm.Expr("CASE WHEN ended_at < ? THEN ended_at ELSE ? END", *cp, *cp)).Error
		if err != nil {
			return err
		}
	}
	row := TaskAttempt{TaskID: t.ID, Attempt: t.Attempt, StartedAt: t.StartedAt, EndedAt: at, Ending: ending,
		Reason: truncate(why, 500), CheckpointAt: t.LastCheckpointAt, Checkpoint: t.LastCheckpoint}
	if err := tx.Create(&row).Error; err != nil {
		return err
	}
	// A node's exit belongs to the attempt it ended: the next attempt starts without any.
	if err := tx.Where("task_id = ?", t.ID).Delete(&TaskNodeExit{}).Error; err != nil {
		return err
	}
	return transition(tx, t.ID, []string{TaskStarting, TaskRunning}, TaskQueued, truncate(rerunReason(why, t.Attempt+1, t.MaxAttempts), 500), now,
		map[string]any{"attempt": t.Attempt + 1, "started_at": nil, "node_id": nil, "exit_code": nil,
			"stop_state": "", "stop_reason": "", "stop_at": nil})
}

// AttemptRow is one attempt of a task as its page and the API show it: an attempt that ended
// in a rerun, or the task's current one (EndedAt nil while it runs, StartedAt nil before it
// starts; Ending and Reason as the task's once it ended). Nodes are the hostnames it ran on,
// in rank order; LostS the card-seconds of its work lost to the rerun.
type AttemptRow struct {
	Attempt      int
	Nodes        []string
	StartedAt    *time.Time
	EndedAt      *time.Time
	Ending       string
	Reason       string
	CheckpointAt *time.Time
	Checkpoint   string
	LostS        int64
	// Current marks the task's attempt now.
	Current bool
}

// TaskAttempts returns a task's attempts, the first first: those that ended in a rerun, then
// its current one.
func (s *Store) TaskAttempts(ctx context.Context, id int64) ([]AttemptRow, error) {
	db := s.db.WithContext(ctx)
	var t Task
	if err := db.Where("id = ?", id).Take(&t).Error; err != nil {
		return nil, notFound(fmt.Sprintf("task %d", id), err)
	}
	var past []TaskAttempt
	if err := db.Where("task_id = ?", id).Order("attempt").Find(&past).Error; err != nil {
		return nil, fmt.Errorf("models: attempts of task %d: %w", id, err)
	}
	var allocs []struct {
		Attempt   int
		NodeID    int64
		Hostname  string
		StartedAt time.Time
		EndedAt   *time.Time
		RerunFrom *time.Time
	}
	err := db.Table("allocations").Select("allocations.attempt, allocations.node_id, nodes.hostname, allocations.started_at, allocations.ended_at, allocations.rerun_from").
		Joins("JOIN nodes ON nodes.id = allocations.node_id").Where("allocations.task_id = ?", id).
		Order("allocations.node_id, allocations.id").Scan(&allocs).Error
	if err != nil {
		return nil, fmt.Errorf("models: attempts of task %d: %w", id, err)
	}
	rows := make([]AttemptRow, 0, len(past)+1)
	for _, p := range past {
		at := p.EndedAt
		rows = append(rows, AttemptRow{Attempt: p.Attempt, StartedAt: p.StartedAt, EndedAt: &at, Ending: p.Ending,
			Reason: p.Reason, CheckpointAt: p.CheckpointAt, Checkpoint: p.Checkpoint})
	}
	cur := AttemptRow{Attempt: max(t.Attempt, 1), StartedAt: t.StartedAt, EndedAt: t.EndedAt, CheckpointAt: t.LastCheckpointAt,
		Checkpoint: t.LastCheckpoint, Current: true}
	if t.EndedAt != nil {
		cur.Ending, cur.Reason = TaskEnding(t.State, t.Reason), t.Reason
	}
	rows = append(rows, cur)
	for _, a := range allocs {
		i := slices.IndexFunc(rows, func(r AttemptRow) bool { return r.Attempt == max(a.Attempt, 1) })
		if i < 0 {
			continue
		}
		if !slices.Contains(rows[i].Nodes, a.Hostname) {
			rows[i].Nodes = append(rows[i].Nodes, a.Hostname)
		}
		if a.RerunFrom != nil && a.EndedAt != nil && a.EndedAt.After(*a.RerunFrom) {
			rows[i].LostS += int64(a.EndedAt.Sub(*a.RerunFrom) / time.Second)
		}
	}
	return rows, nil
}

// resumeFrom is the checkpoint a task's run resumes from, from its second run on: where the
// task said it wrote its last checkpoint, else that checkpoint's time in RFC 3339; "" for a
// first run and for a task that reported no checkpoint.
func resumeFrom(t Task) string {
	switch {
	case t.Attempt <= 1:
		return ""
	case t.LastCheckpoint != "":
		return t.LastCheckpoint
	case t.LastCheckpointAt != nil:
		return t.LastCheckpointAt.UTC().Format(time.RFC3339)
	}
	return ""
}

// maxCheckpoint bounds the place of a checkpoint a task names.
const maxCheckpoint = 1024

// checkCheckpoint validates the place of a checkpoint: a path or URI without spaces or
// control characters, at most maxCheckpoint bytes.
func checkCheckpoint(where string) error {
	if len(where) > maxCheckpoint || strings.ContainsFunc(where, func(r rune) bool { return r <= ' ' || r == 0x7f }) ||
		!utf8.ValidString(where) {
		return fieldErr("checkpoint", "must be a path or URI of at most %d bytes, without spaces or control characters", maxCheckpoint)
	}
	return nil
}
