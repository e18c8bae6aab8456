package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// Agents wait for their assignments to change (the long poll of GET
// /api/v1/agent/assignments). Every write that changes what a node is given — a placement, a
// stop asked, allocations closed — records the node in node_assignment_changes in its own
// transaction, stamped with the next value of a one-row counter (assignment_seq) whose row
// lock orders the stamps as the transactions commit. Each replica's watcher reads the stamps
// past the last it read, and wakes the requests waiting here for those nodes: at once after
// a commit in this process (every commit pokes it), and every AssignmentRecheck for the
// commits of other replicas. A node's record is one row, rewritten; nothing grows.

// AssignmentRecheck is how often a replica reads the changes other replicas committed while
// agents wait on it: the bound on a placement's delay to an agent whose request landed on a
// replica other than the leader (docs/decisions.md).
const AssignmentRecheck = 500 * time.Millisecond

// assignWatch is a replica's watcher of assignment changes and the requests waiting on them,
// at most one per node.
type assignWatch struct {
	mu      sync.Mutex
	waiting map[int64]*AssignmentWait
	// last is the counter's value the watcher has read changes up to.
	last int64
	// started is set once the watcher runs (read without the lock by each wait); stopped
	// once EndAssignmentWaits ran.
	started atomic.Bool
	stopped bool
	// kick is made with the Store (a buffer of one), so that every write may poke it.
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	stop sync.Once
}

// AssignmentWait is one request waiting for its node's assignments to change.
type AssignmentWait struct {
	// C is closed when the node's assignments changed, or when the wait ended (Ended).
	C     <-chan struct{}
	c     chan struct{}
	ended bool
	node  int64
	w     *assignWatch
}

// Ended reports whether C closed because the wait ended rather than for a change: a later
// request of the node took its place, or the server is stopping (EndAssignmentWaits). Call it
// only after C closed.
func (a *AssignmentWait) Ended() bool { return a.ended }

// Stop ends the wait; a wait that was woken or replaced is already gone.
func (a *AssignmentWait) Stop() {
	a.w.mu.Lock()
	defer a.w.mu.Unlock()
	if a.w.waiting[a.node] == a {
		delete(a.w.waiting, a.node)
	}
}

// WaitAssignments registers a wait for node's assignments to change. Register before reading
// the assignments: a change committed after the read then closes C. A wait already
// registered for the node ends (its C closes with Ended set), and so does this one at once
// after EndAssignmentWaits.
func (s *Store) WaitAssignments(ctx context.Context, nodeID int64) (*AssignmentWait, error) {
	w := &s.assigns
	if err := s.startAssignWatch(ctx); err != nil {
		return nil, err
	}
	c := make(chan struct{})
	a := &AssignmentWait{C: c, c: c, node: nodeID, w: w}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		a.ended = true
		close(c)
		return a, nil
	}
	if old := w.waiting[nodeID]; old != nil {
		old.ended = true
		close(old.c)
	}
	w.waiting[nodeID] = a
	return a, nil
}

// startAssignWatch reads where the changes stand and starts the watcher, once.
func (s *Store) startAssignWatch(ctx context.Context) error {
	w := &s.assigns
	if w.started.Load() {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started.Load() || w.stopped {
		return nil
	}
	var last int64
	if err := s.db.WithContext(ctx).Raw("SELECT seq FROM assignment_seq WHERE id = 1").Scan(&last).Error; err != nil {
		return fmt.Errorf("models: watch assignments: %w", err)
	}
	w.last, w.waiting = last, make(map[int64]*AssignmentWait)
	w.started.Store(true)
	w.quit, w.done = make(chan struct{}), make(chan struct{})
	go s.watchAssignments()
	return nil
}

// watchAssignments reads the changes after each poke and every AssignmentRecheck while
// requests wait, until stopAssignWatch.
func (s *Store) watchAssignments() {
	w := &s.assigns
	defer close(w.done)
	tick := time.NewTicker(AssignmentRecheck)
	defer tick.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-w.kick:
		case <-tick.C:
		}
		w.mu.Lock()
		idle, last := len(w.waiting) == 0, w.last
		w.mu.Unlock()
		if idle {
			continue // the next scan reads from last: a change meanwhile still wakes its node
		}
		var rows []struct{ NodeID, Seq int64 }
		err := s.db.Raw("SELECT node_id, seq FROM node_assignment_changes WHERE seq > ? ORDER BY seq", last).Scan(&rows).Error
		if err != nil || len(rows) == 0 {
			continue // a failed read is read again at the next poke or tick
		}
		w.mu.Lock()
		for _, r := range rows {
			if a := w.waiting[r.NodeID]; a != nil {
				delete(w.waiting, r.NodeID)
				close(a.c)
			}
			w.last = max(w.last, r.Seq)
		}
		w.mu.Unlock()
	}
}

// pokeAssignWatch has the watcher read the changes now, when requests wait.
func (s *Store) pokeAssignWatch() {
	select {
	case s.assigns.kick <- struct{}{}:
	default:
	}
}

// EndAssignmentWaits ends every wait, now and later (their C closes with Ended set), and the
// watcher: the server is stopping, and its waiting requests answer at once instead of holding
// the shutdown. Close calls it too.
func (s *Store) EndAssignmentWaits() {
	w := &s.assigns
	w.mu.Lock()
	started := w.started.Load()
	w.stopped = true
	for node, a := range w.waiting {
		delete(w.waiting, node)
		a.ended = true
		close(a.c)
	}
	w.mu.Unlock()
	if started {
		w.stop.Do(func() { close(w.quit) })
		<-w.done
	}
}

// assignmentsChanged records in tx that the nodes' assignments changed. The counter's row
// stays locked until tx ends, so stamps commit in their order.
func assignmentsChanged(tx *gorm.DB, nodeIDs []int64) error {
	ids := slices.Clone(nodeIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return nil
	}
	var seq int64
	if err := tx.Raw("UPDATE assignment_seq SET seq = seq + 1 WHERE id = 1 RETURNING seq").Scan(&seq).Error; err != nil {
		return fmt.Errorf("models: stamp assignment change: %w", err)
	}
	// Real time, not the store's clock (the demo's runs fast): it measures how long the change
	// took to reach the agent.
	at := time.Now().UnixMicro()
	vals := make([]string, len(ids))
	args := make([]any, 0, 3*len(ids))
	for i, id := range ids {
		vals[i] = "(?, ?, ?)"
		args = append(args, id, seq, at)
	}
	err := tx.Exec("INSERT INTO node_assignment_changes (node_id, seq, changed_us) VALUES "+strings.Join(vals, ", ")+
		" ON CONFLICT (node_id) DO UPDATE SET seq = excluded.seq, changed_us = excluded.changed_us", args...).Error
	if err != nil {
		return fmt.Errorf("models: stamp assignment change: %w", err)
	}
	return nil
}

// AssignmentsChangedAt is when node's assignments last changed (a placement, a stop, closed
// allocations), to the microsecond in real time; zero when they never did.
func (s *Store) AssignmentsChangedAt(ctx context.Context, nodeID int64) (time.Time, error) {
	var us []int64
	err := s.db.WithContext(ctx).Raw("SELECT changed_us FROM node_assignment_changes WHERE node_id = ?", nodeID).Scan(&us).Error
	if err != nil {
		return time.Time{}, fmt.Errorf("models: assignments of node %d changed: %w", nodeID, err)
	}
	if len(us) == 0 {
		return time.Time{}, nil
	}
	return time.UnixMicro(us[0]).UTC(), nil
}

// taskAssignmentsChanged records that the assignments of the nodes holding task id changed.
func taskAssignmentsChanged(tx *gorm.DB, id int64) error {
	var nodes []int64
	if err := tx.Model(&Allocation{}).Where("task_id = ? AND ended_at IS NULL", id).Distinct("node_id").Pluck("node_id", &nodes).Error; err != nil {
		return err
	}
	return assignmentsChanged(tx, nodes)
}
