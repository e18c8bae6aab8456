package proof

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ledger is what the checks read back from the database after a proof.
type ledger struct {
	allocs   []alloc
	tasks    map[int64]*task
	nodes    map[int64]node
	machines []machine
	// lostExits are the exits recorded for a node given up as lost, by task and node.
	lostExits map[[2]int64]time.Time
}

type alloc struct {
	ID, TaskID, GPUID, NodeID int64
	// Attempt is the task's attempt the card was given to.
	Attempt int
	Start   time.Time
	End     *time.Time
}

type task struct {
	ID                 int64
	State, Reason, Key string
	GPUs               int
	// Attempt is the attempt the task is in; Start and End are that attempt's. Reruns are
	// its earlier attempts, each ended in a rerun, by number.
	Attempt    int
	Start, End *time.Time
	Reruns     map[int]rerun
	// Starts counts the task's placements (events into starting, or straight into running
	// for imported history); Running is when its process was reported started.
	Starts  int
	Running *time.Time
	allocs  []alloc
}

// rerun is an attempt of a task that ended in a rerun (a task_attempts row).
type rerun struct {
	Start  *time.Time
	End    time.Time
	Ending string
}

// current is the task's allocations of the attempt it is in.
func (t *task) current() []alloc {
	return slices.DeleteFunc(slices.Clone(t.allocs), func(a alloc) bool { return a.Attempt != t.Attempt })
}

type node struct {
	ID                         int64
	Hostname, State, MachineID string
	lastSeen                   time.Time
}

type machine struct {
	ID, PoolID             int64
	Key, ProviderID, State string
	NodeID                 *int64
	Adopted                bool
	Created                time.Time
	Deleted                *time.Time
}

// ended are the states of a task that has ended.
var ended = []string{"succeeded", "failed", "cancelled", "timed-out", "reclaimed"}

// readLedger reads the rows the invariants are about.
func readLedger(ctx context.Context, db database) (*ledger, error) {
	conn, err := sql.Open(db.Driver, db.Source)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	l := &ledger{tasks: map[int64]*task{}, nodes: map[int64]node{}, lostExits: map[[2]int64]time.Time{}}
	err = each(ctx, conn, "SELECT id, task_id, gpu_id, node_id, attempt, started_at, ended_at FROM allocations ORDER BY id", func(r *sql.Rows) error {
		var a alloc
		var end sql.NullTime
		if err := r.Scan(&a.ID, &a.TaskID, &a.GPUID, &a.NodeID, &a.Attempt, &a.Start, &end); err != nil {
			return err
		}
		if end.Valid {
			a.End = &end.Time
		}
		l.allocs = append(l.allocs, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("allocations: %w", err)
	}
	err = each(ctx, conn, "SELECT id, state, reason, COALESCE(idempotency_key, ''), gpus, attempt, started_at, ended_at FROM tasks", func(r *sql.Rows) error {
		t := task{Reruns: map[int]rerun{}}
		var start, end sql.NullTime
		if err := r.Scan(&t.ID, &t.State, &t.Reason, &t.Key, &t.GPUs, &t.Attempt, &start, &end); err != nil {
			return err
		}
		if start.Valid {
			t.Start = &start.Time
		}
		if end.Valid {
			t.End = &end.Time
		}
		l.tasks[t.ID] = &t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	err = each(ctx, conn, "SELECT task_id, attempt, started_at, ended_at, ending FROM task_attempts", func(r *sql.Rows) error {
		var id int64
		var n int
		var x rerun
		var start sql.NullTime
		if err := r.Scan(&id, &n, &start, &x.End, &x.Ending); err != nil {
			return err
		}
		if start.Valid {
			x.Start = &start.Time
		}
		t := l.tasks[id]
		if t == nil {
			return fmt.Errorf("attempt of task %d, which does not exist", id)
		}
		t.Reruns[n] = x
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("task attempts: %w", err)
	}
	err = each(ctx, conn, "SELECT task_id, from_state, to_state, at FROM task_events ORDER BY at, id", func(r *sql.Rows) error {
		var id int64
		var from, to string
		var at time.Time
		if err := r.Scan(&id, &from, &to, &at); err != nil {
			return err
		}
		t := l.tasks[id]
		if t == nil {
			return fmt.Errorf("event of task %d, which does not exist", id)
		}
		if to == "starting" || (to == "running" && from != "starting") {
			t.Starts++
		}
		if to == "running" && t.Running == nil {
			t.Running = &at
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("task events: %w", err)
	}
	err = each(ctx, conn, "SELECT id, hostname, state, machine_id, last_seen_at FROM nodes", func(r *sql.Rows) error {
		var n node
		if err := r.Scan(&n.ID, &n.Hostname, &n.State, &n.MachineID, &n.lastSeen); err != nil {
			return err
		}
		l.nodes[n.ID] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	err = each(ctx, conn, "SELECT task_id, node_id, at FROM task_node_exits WHERE state = 'lost'", func(r *sql.Rows) error {
		var k [2]int64
		var at time.Time
		if err := r.Scan(&k[0], &k[1], &at); err != nil {
			return err
		}
		l.lostExits[k] = at
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("task node exits: %w", err)
	}
	err = each(ctx, conn, "SELECT id, pool_id, idempotency_key, provider_id, state, node_id, adopted, created_at, deleted_at FROM machines ORDER BY id", func(r *sql.Rows) error {
		var m machine
		var nodeID sql.NullInt64
		var deleted sql.NullTime
		if err := r.Scan(&m.ID, &m.PoolID, &m.Key, &m.ProviderID, &m.State, &nodeID, &m.Adopted, &m.Created, &deleted); err != nil {
			return err
		}
		if nodeID.Valid {
			m.NodeID = &nodeID.Int64
		}
		if deleted.Valid {
			m.Deleted = &deleted.Time
		}
		l.machines = append(l.machines, m)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("machines: %w", err)
	}
	for _, a := range l.allocs {
		t := l.tasks[a.TaskID]
		if t == nil {
			return nil, fmt.Errorf("allocation %d of task %d, which does not exist", a.ID, a.TaskID)
		}
		t.allocs = append(t.allocs, a)
	}
	return l, nil
}

// each runs query and calls f on each row.
func each(ctx context.Context, db *sql.DB, query string, f func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// violations collects what broke an invariant, a few of each kind.
type violations map[string][]string

func (v violations) add(kind, format string, args ...any) {
	v[kind] = append(v[kind], fmt.Sprintf(format, args...))
}

func (v violations) String() string {
	var b strings.Builder
	kinds := make([]string, 0, len(v))
	for k := range v {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "%s: %d\n", k, len(v[k]))
		for i, s := range v[k] {
			if i == 5 {
				fmt.Fprintf(&b, "  …\n")
				break
			}
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	return b.String()
}

// noGPUGivenTwice: on each GPU the allocations, open or closed, never overlap: each opens
// at or after the previous one closed, and at most the last one is open.
func (l *ledger) noGPUGivenTwice(v violations) {
	byGPU := map[int64][]alloc{}
	for _, a := range l.allocs {
		byGPU[a.GPUID] = append(byGPU[a.GPUID], a)
	}
	for gpu, as := range byGPU {
		slices.SortFunc(as, func(a, b alloc) int { return a.Start.Compare(b.Start)*2 + cmpInt(a.ID, b.ID) })
		for i := 1; i < len(as); i++ {
			p, a := as[i-1], as[i]
			if p.End == nil || a.Start.Before(*p.End) {
				v.add("GPU given twice", "GPU %d: allocation %d (task %d, %s–%s) overlaps allocation %d (task %d from %s)",
					gpu, p.ID, p.TaskID, p.Start.Format(time.RFC3339), fmtEnd(p.End), a.ID, a.TaskID, a.Start.Format(time.RFC3339))
			}
		}
	}
}

// noTaskRunTwice: a task is placed at most once per attempt; each attempt's allocations all
// open at its start, on distinct GPUs, as many as it asked for; no card is given to an
// attempt that never ran.
func (l *ledger) noTaskRunTwice(v violations) {
	for _, t := range l.tasks {
		ran := len(t.Reruns)
		if t.Start != nil {
			ran++
		}
		if t.Starts > ran {
			v.add("task run twice", "task %d was placed %d times in %d attempts", t.ID, t.Starts, ran)
		}
		byAttempt := map[int][]alloc{}
		for _, a := range t.allocs {
			byAttempt[a.Attempt] = append(byAttempt[a.Attempt], a)
		}
		for n, as := range byAttempt {
			start := t.Start
			if r, ok := t.Reruns[n]; ok {
				start = r.Start
			} else if n != t.Attempt {
				v.add("task run twice", "task %d, in attempt %d, holds %d cards of attempt %d, which did not run", t.ID, t.Attempt, len(as), n)
				continue
			}
			gpus := map[int64]bool{}
			for _, a := range as {
				if gpus[a.GPUID] {
					v.add("task run twice", "task %d holds GPU %d twice in attempt %d", t.ID, a.GPUID, n)
				}
				gpus[a.GPUID] = true
				if start == nil || !a.Start.Equal(*start) {
					v.add("task run twice", "task %d: allocation %d opened at %s, its attempt %d started at %s", t.ID, a.ID, a.Start.Format(time.RFC3339), n, fmtEnd(start))
				}
			}
			if len(gpus) != t.GPUs {
				v.add("task run twice", "task %d asked for %d GPUs and holds %d in attempt %d", t.ID, t.GPUs, len(gpus), n)
			}
		}
	}
}

// rerunsConserved: the cards of an attempt that ended in a rerun are all given back when it
// ended (or when given, if that was later), or, on a lost node of a task of several nodes,
// at that node's recorded loss (the attempt then ends when its other nodes have exited), and
// one lost with its node is charged no second after the node's last sign of life. It
// returns the ledger's card-seconds of those attempts and the same sum computed from the
// attempts.
func (l *ledger) rerunsConserved(t *task, v violations) (ledgerS, taskS int64) {
	for _, a := range t.allocs {
		r, ok := t.Reruns[a.Attempt]
		if !ok || a.Attempt == t.Attempt {
			continue
		}
		want := r.End
		if a.Start.After(want) {
			want = a.Start
		}
		lostAt, lostNode := l.lostExits[[2]int64{t.ID, a.NodeID}]
		atLoss := lostNode && a.End != nil && a.End.Equal(lostAt)
		switch {
		case a.End == nil:
			v.add("ledger not conserved", "task %d's attempt %d was rerun and its allocation %d is still open", t.ID, a.Attempt, a.ID)
			continue
		case atLoss && !lostAt.After(want):
		case !a.End.Equal(want):
			v.add("ledger not conserved", "allocation %d of task %d closed at %s, its attempt %d ended at %s", a.ID, t.ID, fmtEnd(a.End), a.Attempt, want.Format(time.RFC3339))
		}
		if n := l.nodes[a.NodeID]; (r.Ending == "lost" || lostNode) && a.End.After(a.Start) && a.End.After(n.lastSeen) {
			v.add("ledger not conserved", "task %d's attempt %d, lost with node %s last seen %s, is charged until %s", t.ID, a.Attempt, n.Hostname, n.lastSeen.Format(time.RFC3339), fmtEnd(a.End))
		}
		ledgerS += int64(a.End.Sub(a.Start) / time.Second)
		if end := r.End; r.Start != nil {
			if atLoss {
				end = lostAt
			}
			taskS += int64(max(0, end.Sub(*r.Start)) / time.Second)
		}
	}
	return ledgerS, taskS
}

// ledgerConserved: the ledger holds exactly what the tasks held. An ended task's
// allocations are all closed, each at the task's end, or, for a node of a task of several
// nodes that was lost, at that node's recorded loss; a task that ended on a lost node is
// charged no second after the node's last sign of life; a live task's allocations are open
// (but those of its lost nodes); a task that never started holds none; the attempts that
// ended in a rerun as rerunsConserved says. It returns the ledger's card-seconds of ended
// attempts (ended tasks' and reruns') and the same sum computed from the tasks.
func (l *ledger) ledgerConserved(v violations) (ledgerS, taskS int64) {
	for _, t := range l.tasks {
		a, b := l.rerunsConserved(t, v)
		ledgerS, taskS = ledgerS+a, taskS+b
		isEnded := slices.Contains(ended, t.State)
		lostTask := t.State == "failed" && strings.HasPrefix(t.Reason, "node ") && strings.Contains(t.Reason, " lost")
		current := t.current()
		if t.Start == nil && len(current) > 0 {
			v.add("ledger not conserved", "task %d (%s) never started in attempt %d and holds %d allocations", t.ID, t.State, t.Attempt, len(current))
			continue
		}
		for _, a := range current {
			lostAt, lostNode := l.lostExits[[2]int64{t.ID, a.NodeID}]
			switch {
			case !isEnded && a.End == nil, !isEnded && lostNode && a.End.Equal(lostAt):
			case !isEnded:
				v.add("ledger not conserved", "task %d is %s and its allocation %d closed at %s", t.ID, t.State, a.ID, fmtEnd(a.End))
			case a.End == nil:
				v.add("ledger not conserved", "task %d is %s and its allocation %d is still open", t.ID, t.State, a.ID)
			case t.End == nil:
				v.add("ledger not conserved", "task %d is %s with no end", t.ID, t.State)
			case a.End.Before(a.Start):
				v.add("ledger not conserved", "allocation %d of task %d ends before it starts", a.ID, t.ID)
			case !a.End.Equal(*t.End) && !(lostNode && a.End.Equal(lostAt)):
				v.add("ledger not conserved", "allocation %d of task %d closed at %s, the task ended at %s", a.ID, t.ID, fmtEnd(a.End), fmtEnd(t.End))
			}
			if a.End == nil || !isEnded {
				continue
			}
			if n := l.nodes[a.NodeID]; (lostTask || lostNode) && a.End.After(a.Start) && a.End.After(n.lastSeen) {
				v.add("ledger not conserved", "task %d, lost with node %s last seen %s, is charged until %s", t.ID, n.Hostname, n.lastSeen.Format(time.RFC3339), fmtEnd(a.End))
			}
			ledgerS += int64(a.End.Sub(a.Start) / time.Second)
		}
		if isEnded && t.Start != nil && t.End != nil {
			perNode := map[int64]int64{}
			for _, a := range current {
				perNode[a.NodeID]++
			}
			for nodeID, n := range perNode {
				end := *t.End
				if at, ok := l.lostExits[[2]int64{t.ID, nodeID}]; ok {
					end = at
				}
				taskS += n * int64(max(0, end.Sub(*t.Start))/time.Second)
			}
		}
	}
	return ledgerS, taskS
}

// noDuplicateMachines: no two machine intents share a provider id, no node is two machines,
// and no two nodes carry one machine id.
func (l *ledger) noDuplicateMachines(v violations) {
	byProvider, byNode := map[string]int64{}, map[int64]int64{}
	for _, m := range l.machines {
		if m.ProviderID != "" {
			if other, ok := byProvider[m.ProviderID]; ok {
				v.add("duplicate machine", "machines %d and %d are both provider machine %s", other, m.ID, m.ProviderID)
			}
			byProvider[m.ProviderID] = m.ID
		}
		if m.NodeID != nil {
			if other, ok := byNode[*m.NodeID]; ok {
				v.add("duplicate machine", "machines %d and %d are both node %d", other, m.ID, *m.NodeID)
			}
			byNode[*m.NodeID] = m.ID
		}
	}
	byMachine := map[string]int64{}
	for _, n := range l.nodes {
		if n.MachineID == "" {
			continue
		}
		if other, ok := byMachine[n.MachineID]; ok {
			v.add("duplicate machine", "nodes %d and %d both run on machine %s", other, n.ID, n.MachineID)
		}
		byMachine[n.MachineID] = n.ID
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func fmtEnd(t *time.Time) string {
	if t == nil {
		return "open"
	}
	return t.Format(time.RFC3339)
}
