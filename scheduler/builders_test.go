package scheduler

import (
	"kashi/models"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// t0 is a Monday, 12:00 UTC: outside the default off-peak window.
var t0 = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// gid is the id of card index i of node n in the fixtures.
func gid(n int64, i int) int64 { return n*100 + int64(i) }

// node is a schedulable node of spec with gpus cards, ids gid(id, 0…).
func node(id int64, spec string, gpus int) Node {
	n := Node{ID: id, Pool: "pool-" + spec, Spec: spec, Schedulable: true}
	for i := range gpus {
		n.GPUs = append(n.GPUs, GPU{ID: gid(id, i), Index: i})
	}
	return n
}

func draining(n Node) Node {
	n.Schedulable = false
	return n
}

// taskB builds a Pending: by default 1 GPU, any spec, long lane, normal priority, project
// "p", submitted at t0 − 1h + id seconds, data not ready.
type taskB struct{ p Pending }

func pending(id int64) taskB {
	return taskB{Pending{ID: id, Project: "p", Queue: models.QueueLong, Priority: models.PriorityNormal,
		GPUs: 1, SubmittedAt: t0.Add(-time.Hour + time.Duration(id)*time.Second)}}
}

func (b taskB) gpus(n int) taskB             { b.p.GPUs = n; return b }
func (b taskB) spec(s string) taskB          { b.p.Spec = s; return b }
func (b taskB) project(p string) taskB       { b.p.Project = p; return b }
func (b taskB) prio(p string) taskB          { b.p.Priority = p; return b }
func (b taskB) est(d time.Duration) taskB    { b.p.EstRuntime = d; return b }
func (b taskB) maxRun(d time.Duration) taskB { b.p.MaxRuntime = d; return b }
func (b taskB) ready() taskB                 { b.p.DataReady = true; return b }
func (b taskB) deferrable() taskB            { b.p.Deferrable = true; return b }
func (b taskB) service() taskB               { b.p.Service = true; return b }
func (b taskB) rerun() taskB                 { b.p.Rerun = true; return b }
func (b taskB) submitted(at time.Time) taskB { b.p.SubmittedAt = at; return b }
func (b taskB) short(maxRun time.Duration) taskB {
	b.p.Queue, b.p.MaxRuntime = models.QueueShort, maxRun
	return b
}

// runB builds a Running of project "p" that started at t0 − 1h.
type runB struct{ r Running }

func running(id int64, gpus ...int64) runB {
	return runB{Running{TaskID: id, Project: "p", GPUIDs: gpus, StartedAt: t0.Add(-time.Hour)}}
}

func (b runB) project(p string) runB       { b.r.Project = p; return b }
func (b runB) service() runB               { b.r.Service = true; return b }
func (b runB) started(at time.Time) runB   { b.r.StartedAt = at; return b }
func (b runB) est(d time.Duration) runB    { b.r.EstRuntime = d; return b }
func (b runB) maxRun(d time.Duration) runB { b.r.MaxRuntime = d; return b }

// reclaimed says idle reclaim stops the task d after t0 if its cards stay idle.
func (b runB) reclaimed(d time.Duration) runB { b.r.ReclaimAt = t0.Add(d); return b }
func (b runB) ends(est, maxRun time.Duration) runB {
	// The task started an hour ago; est and maxRun count from t0.
	b.r.EstRuntime, b.r.MaxRuntime = time.Hour+est, time.Hour+maxRun
	if est == 0 {
		b.r.EstRuntime = 0
	}
	return b
}

// snapB builds a Snapshot.
type snapB struct{ s Snapshot }

func snapshot(nodes ...Node) snapB { return snapB{Snapshot{Nodes: nodes}} }

func (b snapB) run(rs ...runB) snapB {
	for _, r := range rs {
		b.s.Running = append(b.s.Running, r.r)
	}
	return b
}

func (b snapB) queue(ts ...taskB) snapB {
	for _, t := range ts {
		b.s.Pending = append(b.s.Pending, t.p)
	}
	return b
}

func (b snapB) share(project string, share, usage float64) snapB {
	if b.s.Projects == nil {
		b.s.Projects = map[string]Project{}
	}
	b.s.Projects[project] = Project{Share: share, Usage: usage}
	return b
}

func (b snapB) quota(project string, q QuotaState) snapB {
	if b.s.Quotas == nil {
		b.s.Quotas = map[string]QuotaState{}
	}
	b.s.Quotas[project] = q
	return b
}

// gpus lists card ids gid(n, from…to).
func gpus(n int64, from, to int) []int64 {
	var ids []int64
	for i := from; i <= to; i++ {
		ids = append(ids, gid(n, i))
	}
	return ids
}

// placed maps each placed task to its cards.
func placed(p Plan) map[int64][]int64 {
	m := map[int64][]int64{}
	for _, pl := range p.Placements {
		m[pl.TaskID] = pl.GPUIDs
	}
	return m
}

// why maps each waiting task to its reason.
func why(p Plan) map[int64]Reason {
	m := map[int64]Reason{}
	for _, w := range p.Waiting {
		m[w.TaskID] = w.Reason
	}
	return m
}

func waitingOf(p Plan, id int64) Waiting {
	for _, w := range p.Waiting {
		if w.TaskID == id {
			return w
		}
	}
	return Waiting{}
}

// checkPlan compares the placements and reasons of a plan with the wanted ones.
func checkPlan(t *testing.T, got Plan, wantPlaced map[int64][]int64, wantWhy map[int64]Reason) {
	t.Helper()
	if wantPlaced == nil {
		wantPlaced = map[int64][]int64{}
	}
	if wantWhy == nil {
		wantWhy = map[int64]Reason{}
	}
	if diff := cmp.Diff(wantPlaced, placed(got)); diff != "" {
		t.Errorf("Decide(...) placements = %v, want %v (-want +got):\n%s", placed(got), wantPlaced, diff)
	}
	if diff := cmp.Diff(wantWhy, why(got)); diff != "" {
		t.Errorf("Decide(...) reasons = %v, want %v (-want +got):\n%s", why(got), wantWhy, diff)
	}
}
