package models

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TaskNodeExit is one node's exit from a task: a task ends when the last of its nodes exits.
type TaskNodeExit struct {
	TaskID int64
	NodeID int64
	// State is ReportExited, ReportFailedToStart or nodeLost.
	State    string
	ExitCode int
	At       time.Time
}

// nodeLost is the State of a TaskNodeExit of a node given up as lost.
const nodeLost = "lost"

// MasterPortBase is the first rendezvous port: a task's rank-0 node listens on
// MasterPortBase + task id % 1000, so that tasks sharing a node rarely share a port.
const MasterPortBase = 29500

// taskNode is one node of a task with the GPUs the task holds there.
type taskNode struct {
	TaskID   int64
	NodeID   int64
	Hostname string
	GPUs     int `gorm:"column:gpus"`
}

// taskNodes returns the nodes of each task of ids in rank order: by node id, so every node
// of a task sees the same order, and the first is the master. An attempt is placed once, so
// the allocations of the task's current attempt, open or closed, name its nodes.
func taskNodes(db *gorm.DB, ids []int64) (map[int64][]taskNode, error) {
	var rows []taskNode
	err := db.Table("allocations").
		Select("allocations.task_id, allocations.node_id, nodes.hostname, COUNT(DISTINCT allocations.gpu_id) AS gpus").
		Joins("JOIN nodes ON nodes.id = allocations.node_id").
		Joins("JOIN tasks ON tasks.id = allocations.task_id AND tasks.attempt = allocations.attempt").
		Where("allocations.task_id IN ?", ids).
		Group("allocations.task_id, allocations.node_id, nodes.hostname").
		Order("allocations.task_id, allocations.node_id").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]taskNode, len(ids))
	for _, r := range rows {
		out[r.TaskID] = append(out[r.TaskID], r)
	}
	return out, nil
}

// setShape fills a's node rank and the task's shape from its nodes, in rank order.
func (a *Assignment) setShape(nodes []taskNode, nodeID int64) {
	a.NNodes = len(nodes)
	a.MasterPort = MasterPortBase + int(a.TaskID%1000)
	for i, n := range nodes {
		if i == 0 {
			a.MasterAddr = n.Hostname
		}
		if n.NodeID == nodeID {
			a.NodeRank, a.Rank = i, a.WorldSize
		}
		a.WorldSize += n.GPUs
	}
}

// nodeExited records one node's exit from a running task t. The task ends, as exitState
// says for one node and nodesExitState for several, when its last node exits; until then a
// failure asks the other nodes to stop. A failure that reruns the task (a node lost, or its
// own non-zero exit when it asked for that; see rerunCause) queues it again instead once its
// last node exited, while it has an attempt left. A node's resent exit, or any exit reported
// after the task ended, changes nothing.
func nodeExited(tx *gorm.DB, t Task, nodeID int64, r TaskReport, at, now time.Time, extra map[string]any) error {
	// The task's row lock makes the last of two nodes exiting at once see the other's exit.
	if err := forUpdate(tx).Where("id = ?", t.ID).Take(&t).Error; err != nil {
		return notFound(fmt.Sprintf("task %d", t.ID), err)
	}
	if !t.Live() {
		// A late report (a lost node come back, a spool resending) is recorded once and
		// changes nothing: the task's end stands.
		exit := TaskNodeExit{TaskID: t.ID, NodeID: nodeID, State: r.State, ExitCode: r.ExitCode, At: at}
		return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&exit).Error
	}
	byTask, err := taskNodes(tx, []int64{t.ID})
	if err != nil {
		return err
	}
	nodes := byTask[t.ID]
	exit := TaskNodeExit{TaskID: t.ID, NodeID: nodeID, State: r.State, ExitCode: r.ExitCode, At: at}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&exit)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return nil
	}
	var exits []TaskNodeExit
	if err := tx.Where("task_id = ?", t.ID).Order("at, node_id").Find(&exits).Error; err != nil {
		return err
	}
	state, reason := exitState(t, r)
	code := exitCode(r.State, r.ExitCode)
	if len(nodes) > 1 {
		state, reason, code = nodesExitState(t, nodes, exits, r)
	}
	cause := rerunCause(t, state, exits)
	if cause != "" && rerunsLeft(t) {
		state = TaskQueued
	} else if cause != "" {
		reason = lastAttemptReason(reason, t.Attempt, t.MaxAttempts)
	}
	if len(exits) < len(nodes) {
		if (state == TaskFailed || state == TaskQueued) && t.StopState == "" {
			if err := requestStop(tx, t.ID, state, reason, now); err != nil {
				return err
			}
		}
		if len(extra) == 0 {
			return nil
		}
		return tx.Model(&Task{}).Where("id = ?", t.ID).Updates(extra).Error
	}
	end := at
	for _, e := range exits {
		if e.At.After(end) {
			end = e.At
		}
	}
	if state == TaskQueued {
		if len(extra) > 0 {
			if err := tx.Model(&Task{}).Where("id = ?", t.ID).Updates(extra).Error; err != nil {
				return err
			}
			if err := tx.Where("id = ?", t.ID).Take(&t).Error; err != nil {
				return err
			}
		}
		return rerun(tx, t, cause, reason, end, now)
	}
	set := map[string]any{"ended_at": end, "exit_code": code}
	maps.Copy(set, extra)
	if err := transition(tx, t.ID, []string{TaskStarting, TaskRunning}, state, reason, now, set); err != nil {
		return err
	}
	return tx.Model(&Allocation{}).Where("task_id = ? AND ended_at IS NULL", t.ID).Update("ended_at", end).Error
}

// nodesExitState is the state, reason and exit code of a task of several nodes from its
// nodes' exits so far, oldest first, the latest being r: a stop asked decides, else the
// first failure, else success.
func nodesExitState(t Task, nodes []taskNode, exits []TaskNodeExit, r TaskReport) (string, string, *int) {
	for _, e := range exits {
		if e.State == ReportExited && e.ExitCode == 0 {
			continue
		}
		if t.StopState != "" {
			return t.StopState, t.StopReason, exitCode(e.State, e.ExitCode)
		}
		rank, host := 0, ""
		for i, n := range nodes {
			if n.NodeID == e.NodeID {
				rank, host = i, n.Hostname
			}
		}
		if e.State == nodeLost {
			return TaskFailed, fmt.Sprintf("node %s (rank %d) lost", host, rank), exitCode(e.State, e.ExitCode)
		}
		if e.State == ReportFailedToStart {
			msg := ""
			if e.NodeID == exits[len(exits)-1].NodeID {
				msg = ": " + truncate(r.Message, 400)
			}
			return TaskFailed, fmt.Sprintf("failed to start on node %s (rank %d)%s", host, rank, msg), nil
		}
		return TaskFailed, fmt.Sprintf("node %s (rank %d) exited %d", host, rank, e.ExitCode), exitCode(e.State, e.ExitCode)
	}
	zero := 0
	if t.StopState != "" {
		return t.StopState, t.StopReason, &zero
	}
	return TaskSucceeded, "exited 0", &zero
}

// exitCode is the task's exit code from a node's report of state with code: none (nil) when
// its process never started, since a process that did not run has no code.
func exitCode(state string, code int) *int {
	if state == ReportFailedToStart {
		return nil
	}
	return &code
}

// rerunCause is why the attempt of t that ended in state, with its nodes' exits so far, would
// be rerun: EndLost when one of its nodes was lost, EndFailed when it exited non-zero by
// itself and asked to be rerun then (RerunOnFailure; never when it failed to start); "" when
// it would not be, as when a stop was asked of it (a cancel, its max runtime, a reclaim). A
// stop asked to rerun it (StopState TaskQueued) keeps the cause that asked it.
func rerunCause(t Task, state string, exits []TaskNodeExit) string {
	if t.Service() {
		return ""
	}
	if t.StopState == TaskQueued {
		if slices.ContainsFunc(exits, func(e TaskNodeExit) bool { return e.State == nodeLost }) {
			return EndLost
		}
		return EndFailed
	}
	if t.StopState != "" || state != TaskFailed {
		return ""
	}
	if slices.ContainsFunc(exits, func(e TaskNodeExit) bool { return e.State == nodeLost }) {
		return EndLost
	}
	if !t.RerunOnFailure || slices.ContainsFunc(exits, func(e TaskNodeExit) bool { return e.State == ReportFailedToStart }) {
		return ""
	}
	return EndFailed
}

// TaskHosts returns the host names of each task of ids that was placed, in rank order: the
// nodes of its current attempt.
func (s *Store) TaskHosts(ctx context.Context, ids []int64) (map[int64][]string, error) {
	byTask, err := taskNodes(s.db.WithContext(ctx), ids)
	if err != nil {
		return nil, fmt.Errorf("models: task hosts: %w", err)
	}
	out := make(map[int64][]string, len(byTask))
	for id, ns := range byTask {
		for _, n := range ns {
			out[id] = append(out[id], n.Hostname)
		}
	}
	return out, nil
}
