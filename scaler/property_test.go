package scaler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// randomScalePool draws a pool in any state: nodes ready, drained or drained by hand, busy
// or not, machines booting or failed, demand, memory, and recent scale actions.
func randomScalePool(r *rand.Rand) Pool {
	mins := func(n int) time.Duration { return time.Duration(r.IntN(n)) * time.Minute }
	pol := Policy{MinNodes: r.IntN(4), Step: r.IntN(4), ReservedMin: r.IntN(3), MaxInFlight: r.IntN(5), ShortLaneNodes: r.IntN(4)}
	pol.MaxNodes = pol.MinNodes + r.IntN(6)
	if r.IntN(3) == 0 {
		pol.MemoryLowPct = 100
	}
	p := Pool{Name: "p", GPUsPerNode: 1 + r.IntN(8), Policy: pol}
	for id := int64(1); id <= int64(r.IntN(10)); id++ {
		n := Node{ID: id, MachineID: fmt.Sprintf("m-%d", id), State: NodeStateReady, UnneededSince: ago(mins(60))}
		if r.IntN(5) == 0 {
			n.MachineID = ""
		}
		for k := range r.IntN(3) {
			t := Task{ID: id*10 + int64(k)}
			if r.IntN(4) > 0 {
				t.EstEnd = st0.Add(mins(120) - 30*time.Minute)
			}
			if r.IntN(2) == 0 {
				t.MaxEnd = st0.Add(mins(240))
			}
			n.Tasks = append(n.Tasks, t)
		}
		switch r.IntN(6) {
		case 0:
			n.State, n.DrainSince = NodeStateDraining, ago(mins(60))
		case 1:
			n.State = NodeStateDraining
		case 2:
			n.State = NodeStateLost
		}
		p.Nodes = append(p.Nodes, n)
	}
	for k := range r.IntN(4) {
		p.Booting = append(p.Booting, BootingMachine{Key: fmt.Sprintf("k%d", k), CreatedAt: ago(mins(30)), Failed: r.IntN(8) == 0})
	}
	for k := range r.IntN(4) {
		p.Demand = append(p.Demand, Demand{TaskID: int64(k), GPUs: 1 + r.IntN(16), Since: ago(mins(6)), QuotaBlocked: r.IntN(3) == 0})
	}
	if r.IntN(2) == 0 {
		p.Memory = flat(float64(r.IntN(100)), 20*time.Minute)
	}
	if r.IntN(2) == 0 {
		p.LastScaleUp = ago(mins(30))
	}
	if r.IntN(2) == 0 {
		p.LastScaleDown = ago(mins(30))
	}
	if r.IntN(3) == 0 {
		p.AtMaxSince = ago(mins(60))
	}
	return p
}

// TestDecideScaleProperties checks, over random pools, what must hold whatever the state:
// limits are kept, only removable nodes drain, only empty drained nodes go, a node gets at
// most one action, a pool never grows and shrinks at once, the short lane's reserve is kept
// (a pool over its maximum drains it last), and the plan is deterministic.
func TestDecideScaleProperties(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 1))
		p := randomScalePool(r)
		snap := Snapshot{Pools: []Pool{p}}
		plan := DecideScale(snap, st0)
		if again := DecideScale(snap, st0); !reflect.DeepEqual(plan, again) {
			t.Fatalf("seed %d: DecideScale is not deterministic", seed)
		}
		pol := p.Policy.WithDefaults()
		nodes := make(map[int64]Node)
		for _, n := range p.Nodes {
			nodes[n.ID] = n
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d: %s\npolicy %+v\nnodes %+v\nbooting %+v\ndemand %+v\nactions %v", seed,
				fmt.Sprintf(format, args...), pol, p.Nodes, p.Booting, p.Demand, plan.Actions)
		}
		// The short lane's reserve: the ShortLaneNodes ready nodes of the highest ids, as the
		// scheduler marks them.
		var ready []int64
		for _, n := range p.Nodes {
			if n.State == NodeStateReady {
				ready = append(ready, n.ID)
			}
		}
		slices.Sort(ready)
		lane := make(map[int64]bool)
		for _, id := range ready[max(len(ready)-pol.ShortLaneNodes, 0):] {
			lane[id] = true
		}
		drainedIDs := make(map[int64]bool)
		for _, a := range plan.Actions {
			if a.Kind == ActionDrain {
				drainedIDs[a.NodeID] = true
			}
		}
		seen := make(map[int64]bool)
		grew, shrank := false, false
		booting := len(p.Booting)
		for _, a := range plan.Actions {
			n, known := nodes[a.NodeID]
			if a.NodeID != 0 {
				if seen[a.NodeID] {
					fail("node %d gets two actions", a.NodeID)
				}
				seen[a.NodeID] = true
			}
			switch a.Kind {
			case ActionDeleteMachine:
				booting--
			case ActionScaleUp:
				grew = true
				if a.Count <= 0 || a.To > pol.MaxNodes || booting+a.Count > pol.MaxInFlight {
					fail("scale-up %v breaks max %d or in-flight cap %d (%d booting)", a, pol.MaxNodes, pol.MaxInFlight, booting)
				}
			case ActionDrain:
				shrank = true
				if !known || n.MachineID == "" || n.State != NodeStateReady {
					fail("drain of node %+v, not a removable ready node", n)
				}
				if a.Reason != ReasonAboveMax && a.To < pol.MinNodes {
					fail("drain %v goes under min %d", a, pol.MinNodes)
				}
				if a.Reason == ReasonAboveMax && a.From <= pol.MaxNodes {
					fail("above-max drain %v of a pool within max %d", a, pol.MaxNodes)
				}
				if lane[a.NodeID] && a.Reason != ReasonAboveMax {
					fail("drain %v takes node %d of the short lane's reserve %d", a, a.NodeID, pol.ShortLaneNodes)
				}
				if lane[a.NodeID] {
					for _, o := range p.Nodes {
						if o.State == NodeStateReady && o.MachineID != "" && !lane[o.ID] && !drainedIDs[o.ID] {
							fail("drain %v takes the short lane's node %d while node %d outside it stays", a, a.NodeID, o.ID)
						}
					}
				}
			case ActionRemove:
				if !known || n.DrainSince.IsZero() || len(n.Tasks) > 0 {
					fail("remove of node %+v, not drained by the loop and empty", n)
				}
			case ActionUndrain:
				if !known || n.DrainSince.IsZero() || a.To > pol.MaxNodes {
					fail("undrain %v of node %+v", a, n)
				}
			}
		}
		if grew && shrank {
			fail("the pool grows and shrinks at once")
		}
		// At its maximum with demand waiting: only when the pool cannot grow, since no
		// later than now and no earlier than the last tick said; an alert only after the
		// alert time.
		for _, sz := range plan.Sizes {
			switch {
			case sz.AtMaxSince.IsZero() && sz.AtMaxAlert:
				fail("an at-max alert without an at-max time: %+v", sz)
			case sz.AtMaxSince.IsZero():
			case grew || sz.Desired < pol.MaxNodes:
				fail("at its maximum (%+v) while it grows or has room under max %d", sz, pol.MaxNodes)
			case sz.AtMaxSince.After(st0) || !p.AtMaxSince.IsZero() && !p.AtMaxSince.After(st0) && !sz.AtMaxSince.Equal(p.AtMaxSince):
				fail("at max since %v, the last tick said %v", sz.AtMaxSince, p.AtMaxSince)
			case sz.AtMaxAlert != (st0.Sub(sz.AtMaxSince) >= pol.AtMaxAlertAfter):
				fail("at-max alert %v after %s, alert time %s", sz.AtMaxAlert, st0.Sub(sz.AtMaxSince), pol.AtMaxAlertAfter)
			}
		}
	}
}
