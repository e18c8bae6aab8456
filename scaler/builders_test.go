package scaler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/phrase"
)

// st0 is the scaling tests' fixed clock.
var st0 = time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)

// ago is st0 minus d.
func ago(d time.Duration) time.Time { return st0.Add(-d) }

// poolB builds a Pool: "a100", 8 GPUs per node, min 1, max 10, default policy
// otherwise; its memory history is empty.
type poolB struct{ p Pool }

func scalePool() poolB {
	return poolB{Pool{Name: "a100", GPUsPerNode: 8, Policy: Policy{MinNodes: 1, MaxNodes: 10}}}
}

func (b poolB) policy(f func(*Policy)) poolB    { f(&b.p.Policy); return b }
func (b poolB) nodes(ns ...Node) poolB          { b.p.Nodes = append(b.p.Nodes, ns...); return b }
func (b poolB) demand(ds ...Demand) poolB       { b.p.Demand = append(b.p.Demand, ds...); return b }
func (b poolB) memory(pts ...MemoryPoint) poolB { b.p.Memory = append(b.p.Memory, pts...); return b }
func (b poolB) lastUp(d time.Duration) poolB    { b.p.LastScaleUp = ago(d); return b }
func (b poolB) lastDown(d time.Duration) poolB  { b.p.LastScaleDown = ago(d); return b }

// booting adds a machine asked for d ago.
func (b poolB) booting(key string, d time.Duration) poolB {
	b.p.Booting = append(b.p.Booting, BootingMachine{Key: key, ID: "i-" + key, CreatedAt: ago(d)})
	return b
}

func (b poolB) snap() Snapshot { return Snapshot{Pools: []Pool{b.p}} }

// busy is a ready node (machine "m-<id>") running the tasks.
func busy(id int64, tasks ...Task) Node {
	return Node{ID: id, MachineID: fmt.Sprintf("m-%d", id), State: NodeStateReady, Tasks: tasks}
}

// idleNode is a ready node without a task since d ago (persisted).
func idleNode(id int64, d time.Duration) Node {
	n := busy(id)
	n.UnneededSince = ago(d)
	return n
}

// static is a node no provider made.
func static(n Node) Node { n.MachineID = ""; return n }

// drainedFor is n drained by the loop d ago.
func drainedFor(n Node, d time.Duration) Node {
	n.State, n.DrainSince = NodeStateDraining, ago(d)
	return n
}

// task ends by its estimate in est and by its max runtime in maxEnd (zero: none).
func task(id int64, est, maxEnd time.Duration) Task {
	t := Task{ID: id, EstEnd: st0.Add(est)}
	if maxEnd != 0 {
		t.MaxEnd = st0.Add(maxEnd)
	}
	return t
}

// longTask has no expected end at all.
func longTask(id int64) Task { return Task{ID: id} }

// wait is admissible demand of gpus that waited d.
func wait(id int64, gpus int, d time.Duration) Demand {
	return Demand{TaskID: id, GPUs: gpus, Since: ago(d)}
}

func quotaBlocked(d Demand) Demand { d.QuotaBlocked = true; return d }

// flat is memory at pct every minute over the last d (and at st0).
func flat(pct float64, d time.Duration) []MemoryPoint {
	var out []MemoryPoint
	for at := ago(d); !at.After(st0); at = at.Add(time.Minute) {
		out = append(out, MemoryPoint{At: at, UsedPct: pct})
	}
	return out
}

// summary writes a plan as short lines: actions ("scale-up +2 demand-waiting", "drain 3
// node-unneeded", "delete k1 boot-timeout", "notice 7 idle-task") then skips ("skip
// in-cooldown").
func summary(p Plan) []string {
	var out []string
	for _, a := range p.Actions {
		switch a.Kind {
		case ActionScaleUp:
			out = append(out, fmt.Sprintf("scale-up +%d %s", a.Count, a.Reason))
		case ActionDrain, ActionUndrain, ActionRemove:
			out = append(out, fmt.Sprintf("%s %d %s", a.Kind, a.NodeID, a.Reason))
		case ActionDeleteMachine:
			out = append(out, fmt.Sprintf("delete %s %s", a.MachineKey, a.Reason))
		default:
			out = append(out, fmt.Sprintf("%s %d %s", a.Kind, a.TaskID, a.Reason))
		}
	}
	for _, s := range p.Skips {
		out = append(out, "skip "+string(s.Reason))
	}
	return out
}

// checkSummary compares DecideScale's plan with want, and each detail with the fragments.
func checkSummary(t *testing.T, snap Snapshot, want []string, details ...string) Plan {
	t.Helper()
	plan := DecideScale(snap, st0)
	if diff := cmp.Diff(want, summary(plan)); diff != "" {
		t.Errorf("DecideScale(...) summary (-want +got):\n%s\nactions: %v\nskips: %v", diff, plan.Actions, plan.Skips)
	}
	var all []string
	for _, a := range plan.Actions {
		all = append(all, english.Say(a.Detail))
	}
	for _, s := range plan.Skips {
		all = append(all, english.Say(s.Detail))
	}
	text := strings.Join(all, " | ")
	for _, d := range details {
		if !strings.Contains(text, d) {
			t.Errorf("DecideScale(...) details %q, want %q among them", text, d)
		}
	}
	return plan
}

// english writes a plan's details as the English pages do.
var english = phrase.Locale{Lang: phrase.LangEN}
