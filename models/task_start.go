package models

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// start is a queued task to start on its node, as placed.
type start struct {
	taskID, nodeID int64
	reason         string
	at             time.Time
}

// startChunk bounds the tasks of one statement of startTasks (seven values each).
const startChunk = 500

// startTasks moves the tasks of starts from queued to starting in tx, on their nodes, with a
// statement per startChunk tasks rather than one each, and records each move as transition
// does (its event, its owner's notice). It returns, for each, nil or why it did not move:
// ErrConflict when it was no longer queued (a cancel committed beside the tick on
// Postgres), ErrNotFound when it is gone; those are left as they are.
func startTasks(tx *gorm.DB, starts []start) ([]error, error) {
	moved := make(map[int64]bool, len(starts))
	for chunk := range slices.Chunk(starts, startChunk) {
		q, args := startSQL(chunk, tx.Dialector.Name() == "postgres")
		rows, err := tx.Raw(q, args...).Rows()
		if err != nil {
			return nil, fmt.Errorf("start tasks: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("start tasks: %w", err)
			}
			moved[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("start tasks: %w", err)
		}
	}
	errs := make([]error, len(starts))
	var events []TaskEvent
	for i, st := range starts {
		if !moved[st.taskID] {
			errs[i] = notStarted(tx, st.taskID)
			continue
		}
		events = append(events, TaskEvent{TaskID: st.taskID, At: st.at, From: TaskQueued, To: TaskStarting, Reason: st.reason})
	}
	if len(events) == 0 {
		return errs, nil
	}
	if err := tx.CreateInBatches(&events, startChunk).Error; err != nil {
		return nil, err
	}
	for _, ev := range events {
		if err := notifyTaskOwner(tx, ev.TaskID, ev.To, ev.Reason, ev.At); err != nil {
			return nil, err
		}
	}
	return errs, nil
}

// startSQL is the conditional update of starts: each task's reason, node and start by its
// id. Postgres is told the types of the values it cannot infer inside CASE.
func startSQL(starts []start, postgres bool) (string, []any) {
	node, at := "?", "?"
	if postgres {
		node, at = "CAST(? AS BIGINT)", "CAST(? AS TIMESTAMPTZ)"
	}
	var reason, nodes, ats, ids strings.Builder
	args := make([]any, 0, 1+7*len(starts)+1)
	args = append(args, TaskStarting)
	var reasonArgs, nodeArgs, atArgs, idArgs []any
	for i, st := range starts {
		reason.WriteString(" WHEN ? THEN ?")
		nodes.WriteString(" WHEN ? THEN " + node)
		ats.WriteString(" WHEN ? THEN " + at)
		if i > 0 {
			ids.WriteByte(',')
		}
		ids.WriteByte('?')
		reasonArgs = append(reasonArgs, st.taskID, st.reason)
		nodeArgs = append(nodeArgs, st.taskID, st.nodeID)
		atArgs = append(atArgs, st.taskID, st.at)
		idArgs = append(idArgs, st.taskID)
	}
	args = append(args, reasonArgs...)
	args = append(args, nodeArgs...)
	args = append(args, atArgs...)
	args = append(args, idArgs...)
	args = append(args, TaskQueued)
	return "UPDATE tasks SET state = ?, reason = CASE id" + reason.String() + " END, node_id = CASE id" + nodes.String() +
		" END, started_at = CASE id" + ats.String() + " END WHERE id IN (" + ids.String() + ") AND state = ? RETURNING id", args
}

// notStarted is why a task the update left alone did not start.
func notStarted(tx *gorm.DB, id int64) error {
	var t Task
	if err := tx.Select("id, state").Where("id = ?", id).Take(&t).Error; err != nil {
		return notFound(fmt.Sprintf("task %d", id), err)
	}
	return fmt.Errorf("models: task %d is %s: %w", id, t.State, ErrConflict)
}
