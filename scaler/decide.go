package scaler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"kashi/phrase"
)

// DecideScale is one pass of the scaling loop over a snapshot: which pools grow, which nodes
// drain, come back or go, which booting machines are given up, and which idle tasks are
// warned or reclaimed. It is pure and deterministic, like Decide.
//
// Per pool (by name), with its policy's defaults filled in:
//
//  1. Boot. A booting machine the provider reports failed, or whose agent did not register
//     within BootTimeout of the intent, is deleted (ReasonMachineFailed, ReasonBootTimeout),
//     and counts as one more boot failure in a row (Pool.Boot; PoolSize.Boot after).
//  2. Unneeded marks. Each ready node without a task keeps its persisted "first seen without
//     a task" time, or gets now; the plan carries the marks to persist.
//  3. Needs. Size is the nodes not draining on the loop's behalf plus machines booting. The
//     pool needs more nodes when: it is under MinNodes (ReasonBelowMin); admissible demand
//     (ready, within quota: quota-blocked tasks never count) waited longer than ScaleUpDelay
//     and its GPUs need more nodes than are booting (ReasonDemandWaiting); mean memory use
//     stayed above MemoryHighPct for MemoryHighWindow and less than a step is booting
//     (ReasonMemoryHigh, one step); fewer than ReservedMin nodes outside the short lane's
//     reserve are empty or booting (ReasonReservedMin). The need is the largest of these.
//  4. Drained nodes. A need is met first by nodes the loop is draining (empty ones first),
//     which take tasks again, while the pool stays within MaxNodes. The other drained nodes
//     are removed once empty; one still busy after DrainBuffer takes tasks again (the drain
//     is given up, ReasonDrainTooLong) unless the pool is over MaxNodes.
//  5. Scale up the rest of the need, rounded up to a multiple of Step and cut to MaxNodes
//     and to MaxInFlight booting machines; not within CooldownAfterUp of the last scale-up
//     unless the pool is under MinNodes. Never while the pool fails (BootFailureLimit
//     machines in a row did not boot: ReasonBootFailing, until an admin resumes it), nor
//     within the back-off after its last boot failure, whatever the need (BootRun.Backoff:
//     ReasonBootBackoff), so that a pool whose machines cannot boot does not pay for one
//     machine after another. A need not met is explained (ReasonAtMaxSize,
//     ReasonInFlightCap, ReasonInCooldown).
//     A pool at MaxNodes whose waiting demand needs more nodes is at its maximum since the
//     first tick it was (Pool.AtMaxSince, carried on in PoolSize); after AtMaxAlertAfter the
//     plan asks for an alert (PoolSize.AtMaxAlert).
//  6. Scale down. A pool over MaxNodes (lowered by an admin) drains the excess at once,
//     whatever the demand. Otherwise, when no need is left and no drained node came back,
//     it shrinks by up to Step nodes, never under MinNodes, when no admissible
//     demand waits at all, some node outside the short lane's reserve has had no task for
//     UnneededTime, mean memory use
//     stayed under MemoryLowPct for MemoryLowWindow, and neither cooldown runs. It drains
//     empty nodes first (longest empty first, keeping ReservedMin of them), then busy nodes
//     whose tasks all end soonest, and within DrainBuffer, by their expected ends. Draining
//     never stops a task: a drained node is removed only once empty. Nodes no provider
//     made are never chosen, nor the short lane's reserve (ShortLaneNodes), which a pool over
//     its maximum drains last. Each reason not to shrink is explained.
//
// A pool the cluster's own autoscaler sizes (Pool.ClusterScaled) gets none of this: its size
// and demand are reported (reportCluster), and it never acts.
//
// Then DecideReclaim adds the idle-reclaim actions for snap.Tasks.
func DecideScale(snap Snapshot, now time.Time) Plan {
	plan := Plan{Unneeded: make(map[int64]time.Time)}
	pools := slices.Clone(snap.Pools)
	slices.SortFunc(pools, func(a, b Pool) int { return cmp.Compare(a.Name, b.Name) })
	for i := range pools {
		if pools[i].ClusterScaled {
			reportCluster(&plan, pools[i])
			continue
		}
		ps := newPoolPass(&plan, &pools[i], now)
		ps.decide()
	}
	plan.Actions = append(plan.Actions, DecideReclaim(snap.Tasks, now)...)
	return plan
}

// poolPass is DecideScale's work on one pool.
type poolPass struct {
	plan *Plan
	p    *Pool
	pol  Policy
	now  time.Time
	gpn  int

	booting []BootingMachine
	ready   []Node // ready nodes, by id
	drained []Node // nodes the loop drains
	// lane holds the short lane's reserve: the ShortLaneNodes ready nodes of the highest ids.
	lane  map[int64]bool
	empty int // ready nodes without a task, the short lane's left out
	// active is the size the pool heads to: nodes not drained by the loop, plus booting.
	active int
	acted  bool
	// covered explains demand that waited but is covered by machines booting.
	covered phrase.List
	// floor is the size the pool's bookings need (see bookedFloor); 0 without bookings.
	floor int
	// run is the pool's boot failures in a row, this pass's included.
	run BootRun
}

func newPoolPass(plan *Plan, p *Pool, now time.Time) *poolPass {
	ps := &poolPass{plan: plan, p: p, pol: p.Policy.WithDefaults(), now: now, gpn: max(p.GPUsPerNode, 1), lane: make(map[int64]bool), run: p.Boot}
	nodes := slices.Clone(p.Nodes)
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	ps.ready = make([]Node, 0, len(nodes))
	for _, n := range nodes {
		switch {
		case n.State == NodeStateReady:
			ps.ready = append(ps.ready, n)
		case n.State == NodeStateDraining && !n.DrainSince.IsZero():
			ps.drained = append(ps.drained, n)
		}
	}
	for _, n := range ps.ready[max(len(ps.ready)-ps.pol.ShortLaneNodes, 0):] {
		ps.lane[n.ID] = true
	}
	for _, n := range ps.ready {
		if len(n.Tasks) == 0 && !ps.lane[n.ID] {
			ps.empty++
		}
	}
	ps.active = len(nodes) - len(ps.drained) + len(p.Booting)
	ps.floor = ps.bookedFloor()
	return ps
}

func (ps *poolPass) decide() {
	size := len(ps.p.Nodes) + len(ps.p.Booting)
	ps.boot()
	ps.markUnneeded()
	want, why := ps.needs()
	want = ps.settleDrained(want, why)
	atMax := want > 0 && ps.active >= ps.pol.MaxNodes && slices.ContainsFunc(why, demandWaits)
	switch {
	case ps.active > ps.pol.MaxNodes:
		ps.drainExcess()
	case want > 0:
		ps.scaleUp(want, why)
	case !ps.grewBack():
		ps.scaleDown()
	}
	switch {
	case ps.covered != nil:
		ps.skip(ReasonCoveredByBooting, ps.covered...)
	case !ps.acted && len(why) == 0:
		ps.skip(ReasonNoDemand, phrase.New("no_demand", phrase.Dur(ps.pol.ScaleUpDelay)))
	}
	sz := PoolSize{Pool: ps.p.Name, Size: size, Desired: ps.active, DemandGPUs: admissibleGPUs(ps.p.Demand), Boot: ps.run}
	if atMax {
		sz.AtMaxSince = ps.p.AtMaxSince
		if sz.AtMaxSince.IsZero() || sz.AtMaxSince.After(ps.now) {
			sz.AtMaxSince = ps.now
		}
		sz.AtMaxAlert = ps.now.Sub(sz.AtMaxSince) >= ps.pol.AtMaxAlertAfter
	}
	ps.plan.Sizes = append(ps.plan.Sizes, sz)
}

// admissibleGPUs is the cards of the demand that is admissible: quota-blocked tasks left out,
// whatever their wait.
func admissibleGPUs(ds []Demand) int {
	n := 0
	for _, d := range ds {
		if !d.QuotaBlocked && d.GPUs > 0 {
			n += d.GPUs
		}
	}
	return n
}

// demandWaits reports whether n is the need of waiting demand.
func demandWaits(n need) bool { return n.reason == ReasonDemandWaiting }

// grewBack reports whether a drained node came back this pass.
func (ps *poolPass) grewBack() bool {
	for _, a := range ps.plan.Actions {
		if a.Pool == ps.p.Name && a.Kind == ActionUndrain {
			return true
		}
	}
	return false
}

func (ps *poolPass) act(a Action) {
	a.Pool = ps.p.Name
	ps.plan.Actions = append(ps.plan.Actions, a)
	ps.acted = true
}

func (ps *poolPass) skip(r Reason, detail ...phrase.Phrase) {
	ps.plan.Skips = append(ps.plan.Skips, Skip{Pool: ps.p.Name, Reason: r, Detail: detail})
}

// boot gives up failed machines and those past the boot timeout.
func (ps *poolPass) boot() {
	ms := slices.Clone(ps.p.Booting)
	slices.SortFunc(ms, func(a, b BootingMachine) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Key, b.Key))
	})
	for _, m := range ms {
		a := Action{Kind: ActionDeleteMachine, MachineKey: m.Key, MachineID: m.ID, From: ps.active, To: ps.active - 1}
		switch age := ps.now.Sub(m.CreatedAt); {
		case m.Failed:
			a.Reason, a.Detail = ReasonMachineFailed, phrase.Of(phrase.New("machine_failed", phrase.S(m.name())))
		case age > ps.pol.BootTimeout:
			a.Reason = ReasonBootTimeout
			a.Detail = phrase.Of(phrase.New("boot_timeout", phrase.S(m.name()), phrase.Dur(ps.pol.BootTimeout), phrase.Dur(age)))
		default:
			ps.booting = append(ps.booting, m)
			continue
		}
		ps.act(a)
		ps.active--
		ps.run = ps.run.failed(ps.now, ps.pol)
	}
}

func (m BootingMachine) name() string {
	if m.ID != "" {
		return m.ID + " (" + m.Key + ")"
	}
	return m.Key
}

// markUnneeded carries each empty ready node's first-seen-empty time into the plan.
func (ps *poolPass) markUnneeded() {
	for _, n := range ps.ready {
		if len(n.Tasks) > 0 {
			continue
		}
		since := n.UnneededSince
		if since.IsZero() || since.After(ps.now) {
			since = ps.now
		}
		ps.plan.Unneeded[n.ID] = since
	}
}

// need is one reason the pool wants more nodes.
type need struct {
	reason Reason
	nodes  int
	detail phrase.Phrase
}

// needs returns how many more nodes the pool wants and every reason that wants some.
func (ps *poolPass) needs() (int, []need) {
	var why []need
	add := func(r Reason, n int, detail phrase.Phrase) {
		if n > 0 {
			why = append(why, need{r, n, detail})
		}
	}
	pol := ps.pol
	add(ReasonBelowMin, pol.MinNodes-ps.active, phrase.New("size_below_min", phrase.N(ps.active), phrase.N(pol.MinNodes)))
	gpus, waited := 0, time.Duration(0)
	for _, d := range ps.p.Demand {
		if d.QuotaBlocked || d.GPUs <= 0 {
			continue
		}
		if w := ps.now.Sub(d.Since); w > pol.ScaleUpDelay {
			gpus += d.GPUs
			waited = max(waited, w)
		}
	}
	demandText := phrase.New("demand_waited", phrase.N(gpus), phrase.Dur(waited), phrase.Dur(pol.ScaleUpDelay))
	add(ReasonDemandWaiting, ceilDiv(gpus, ps.gpn)-len(ps.booting), demandText)
	ps.covered = nil
	if gpus > 0 && ceilDiv(gpus, ps.gpn) <= len(ps.booting) {
		ps.covered = phrase.Of(demandText, phrase.New("booting_cover", phrase.N(len(ps.booting))))
	}
	if pol.MemoryHighPct < 100 {
		held, mean, _ := memoryHeld(ps.p.Memory, ps.now, pol.MemoryHighWindow, func(v float64) bool { return v > pol.MemoryHighPct })
		memText := phrase.New("memory_high", phrase.Pct(mean), phrase.Pct(pol.MemoryHighPct), phrase.Dur(pol.MemoryHighWindow))
		switch {
		case held && pol.Step > len(ps.booting):
			add(ReasonMemoryHigh, pol.Step-len(ps.booting), memText)
		case held && ps.covered == nil:
			ps.covered = phrase.Of(memText, phrase.New("booting_cover", phrase.N(len(ps.booting))))
		}
	}
	if ps.floor > 0 {
		add(ReasonBooked, ps.floor-ps.active, phrase.New("booked_ahead", phrase.N(ps.active), phrase.N(ps.floor)))
	}
	spare := ps.empty + len(ps.booting)
	add(ReasonReservedMin, pol.ReservedMin-spare, phrase.New("reserve_short", phrase.N(spare), phrase.N(pol.ReservedMin)))
	n := 0
	for _, w := range why {
		n = max(n, w.nodes)
	}
	return n, why
}

// settleDrained brings drained nodes back for the need, removes empty ones and gives up
// drains that waited too long. It returns the need left.
func (ps *poolPass) settleDrained(want int, why []need) int {
	drained := slices.Clone(ps.drained)
	slices.SortStableFunc(drained, func(a, b Node) int { return cmp.Compare(len(a.Tasks), len(b.Tasks)) })
	var rest []Node
	for _, n := range drained {
		if want > 0 && ps.active < ps.pol.MaxNodes {
			ps.act(Action{Kind: ActionUndrain, NodeID: n.ID, Reason: why[0].reason, From: ps.active, To: ps.active + 1,
				Detail: joinNeeds(why).And(phrase.New("node_back", phrase.ID(n.ID)))})
			ps.active++
			want--
			continue
		}
		rest = append(rest, n)
	}
	slices.SortFunc(rest, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	for _, n := range rest {
		drainedFor := ps.now.Sub(n.DrainSince)
		switch {
		case len(n.Tasks) == 0:
			ps.act(Action{Kind: ActionRemove, NodeID: n.ID, MachineID: n.MachineID, Reason: ReasonDrainedEmpty,
				From: ps.active, To: ps.active, Detail: phrase.Of(phrase.New("drained_empty", phrase.ID(n.ID), phrase.Dur(drainedFor)))})
		case drainedFor > ps.pol.DrainBuffer && ps.active < ps.pol.MaxNodes:
			ps.act(Action{Kind: ActionUndrain, NodeID: n.ID, Reason: ReasonDrainTooLong, From: ps.active, To: ps.active + 1,
				Detail: phrase.Of(phrase.New("drain_too_long", phrase.ID(n.ID), phrase.N(len(n.Tasks)),
					phrase.Dur(drainedFor), phrase.Dur(ps.pol.DrainBuffer)))})
			ps.active++
		}
	}
	return want
}

// scaleUp asks for the need, rounded to steps and cut by the limits, or says why not.
func (ps *poolPass) scaleUp(want int, why []need) {
	pol := ps.pol
	switch retry := ps.run.RetryAt(pol); {
	case ps.run.Failing():
		ps.skip(ReasonBootFailing, joinNeeds(why).And(phrase.New("boot_failing", phrase.N(ps.run.Failures),
			phrase.Dur(ps.now.Sub(ps.run.FailingSince))))...)
		return
	case ps.now.Before(retry):
		ps.skip(ReasonBootBackoff, joinNeeds(why).And(phrase.New("boot_backoff", phrase.N(ps.run.Failures),
			phrase.N(pol.BootFailureLimit), phrase.Dur(retry.Sub(ps.now)), phrase.Dur(ps.run.Backoff(pol))))...)
		return
	}
	belowMin := why[0].reason == ReasonBelowMin
	if since := ps.now.Sub(ps.p.LastScaleUp); !ps.p.LastScaleUp.IsZero() && since < pol.CooldownAfterUp && !belowMin {
		ps.skip(ReasonInCooldown, joinNeeds(why).And(phrase.New("cooldown_up", phrase.Dur(since), phrase.Dur(pol.CooldownAfterUp)))...)
		return
	}
	count := ceilDiv(want, pol.Step) * pol.Step
	room, flight := pol.MaxNodes-ps.active, pol.MaxInFlight-len(ps.booting)
	switch {
	case room <= 0:
		ps.skip(ReasonAtMaxSize, joinNeeds(why).And(phrase.New("size_at_max", phrase.N(ps.active), phrase.N(pol.MaxNodes)))...)
		return
	case flight <= 0:
		ps.skip(ReasonInFlightCap, joinNeeds(why).And(phrase.New("booting_at_cap", phrase.N(len(ps.booting)), phrase.N(pol.MaxInFlight)))...)
		return
	case count > room && room <= flight:
		ps.skip(ReasonAtMaxSize, phrase.New("max_room", phrase.N(count), phrase.N(pol.MaxNodes), phrase.N(room)))
		count = room
	case count > flight:
		ps.skip(ReasonInFlightCap, phrase.New("cap_room", phrase.N(count), phrase.N(len(ps.booting)), phrase.N(pol.MaxInFlight)))
		count = flight
	}
	ps.act(Action{Kind: ActionScaleUp, Count: count, Reason: why[0].reason, Detail: joinNeeds(why),
		From: ps.active, To: ps.active + count})
	ps.active += count
}

// drainExcess shrinks a pool over its maximum (lowered by an admin), whatever the demand:
// machines still booting go first (newest first), then the nodes that empty soonest drain.
func (ps *poolPass) drainExcess() {
	for i := len(ps.booting) - 1; i >= 0 && ps.active > ps.pol.MaxNodes; i-- {
		m := ps.booting[i]
		ps.act(Action{Kind: ActionDeleteMachine, MachineKey: m.Key, MachineID: m.ID, Reason: ReasonAboveMax,
			Detail: phrase.Of(phrase.New("size_over_max", phrase.N(ps.active), phrase.N(ps.pol.MaxNodes)), phrase.New("machine_booting", phrase.S(m.name()))),
			From:   ps.active, To: ps.active - 1})
		ps.active--
		ps.booting = ps.booting[:i]
	}
	cands := ps.candidates(false)
	for _, c := range cands[:min(ps.active-ps.pol.MaxNodes, len(cands))] {
		ps.drain(c.node, ReasonAboveMax, phrase.Of(phrase.New("size_over_max", phrase.N(ps.active), phrase.N(ps.pol.MaxNodes)), c.why))
	}
}

// scaleDown drains up to a step of nodes when the pool is idle enough to shrink, or says
// why not.
func (ps *poolPass) scaleDown() {
	pol := ps.pol
	pending, tasks := 0, 0
	for _, d := range ps.p.Demand {
		if !d.QuotaBlocked && d.GPUs > 0 {
			pending += d.GPUs
			tasks++
		}
	}
	if pending > 0 {
		ps.skip(ReasonDemandPending, phrase.New("demand_pending", phrase.N(tasks), phrase.N(pending)))
		return
	}
	if ps.active <= pol.MinNodes {
		ps.skip(ReasonAtMinSize, phrase.New("size_at_min", phrase.N(ps.active), phrase.N(pol.MinNodes)))
		return
	}
	if ps.active <= ps.floor {
		ps.skip(ReasonBooked, phrase.New("booked_holds", phrase.N(ps.active), phrase.N(ps.floor)))
		return
	}
	gate, longest := Node{}, time.Duration(-1)
	for _, n := range ps.ready {
		if len(n.Tasks) > 0 || n.MachineID == "" || ps.lane[n.ID] {
			continue
		}
		if d := ps.now.Sub(ps.plan.Unneeded[n.ID]); d > longest {
			gate, longest = n, d
		}
	}
	switch {
	case longest < 0:
		ps.skip(ReasonNoneUnneeded, append([]phrase.Phrase{phrase.New("all_busy")}, ps.laneNote()...)...)
		return
	case longest < pol.UnneededTime:
		ps.skip(ReasonNoneUnneeded, phrase.New("empty_too_short", phrase.ID(gate.ID), phrase.Dur(longest), phrase.Dur(pol.UnneededTime)))
		return
	}
	memText := phrase.New("memory_off")
	if pol.MemoryLowPct < 100 {
		held, mean, ok := memoryHeld(ps.p.Memory, ps.now, pol.MemoryLowWindow, func(v float64) bool { return v < pol.MemoryLowPct })
		switch {
		case !ok:
			ps.skip(ReasonMemoryNotLow, phrase.New("memory_no_samples", phrase.Dur(pol.MemoryLowWindow)))
			return
		case !held:
			ps.skip(ReasonMemoryNotLow, phrase.New("memory_reached", phrase.Pct(mean), phrase.Pct(pol.MemoryLowPct), phrase.Dur(pol.MemoryLowWindow)))
			return
		}
		memText = phrase.New("memory_low", phrase.Pct(mean), phrase.Pct(pol.MemoryLowPct), phrase.Dur(pol.MemoryLowWindow))
	}
	if since := ps.now.Sub(ps.p.LastScaleUp); !ps.p.LastScaleUp.IsZero() && since < pol.CooldownAfterUp {
		ps.skip(ReasonInCooldown, phrase.New("cooldown_up", phrase.Dur(since), phrase.Dur(pol.CooldownAfterUp)))
		return
	}
	if since := ps.now.Sub(ps.p.LastScaleDown); !ps.p.LastScaleDown.IsZero() && since < pol.CooldownAfterDown {
		ps.skip(ReasonInCooldown, phrase.New("cooldown_down", phrase.Dur(since), phrase.Dur(pol.CooldownAfterDown)))
		return
	}
	cands := ps.candidates(true)
	if len(cands) == 0 {
		if ps.empty > 0 && pol.ReservedMin > 0 {
			ps.skip(ReasonReservedMin, phrase.New("keeping_reserve", phrase.N(ps.empty+len(ps.booting)), phrase.N(pol.ReservedMin)))
		} else {
			ps.skip(ReasonNoRemovable, append([]phrase.Phrase{phrase.New("none_removable", phrase.Dur(pol.DrainBuffer))}, ps.laneNote()...)...)
		}
		return
	}
	gateText := phrase.Of(phrase.New("empty_long_enough", phrase.ID(gate.ID), phrase.Dur(longest), phrase.Dur(pol.UnneededTime)), memText)
	for _, c := range cands[:min(pol.Step, ps.active-max(pol.MinNodes, ps.floor), len(cands))] {
		ps.drain(c.node, ReasonNodeUnneeded, gateText.And(c.why))
	}
}

func (ps *poolPass) drain(n Node, r Reason, detail phrase.List) {
	ps.act(Action{Kind: ActionDrain, NodeID: n.ID, MachineID: n.MachineID, Reason: r, Detail: detail,
		From: ps.active, To: ps.active - 1})
	ps.active--
}

// candidate is a node that may be drained, with when it will be empty.
type candidate struct {
	node   Node
	freeAt time.Time // now for an empty node; zero when some task has no expected end
	why    phrase.Phrase
}

// laneNote says which nodes the short lane's reserve keeps, if it has any.
func (ps *poolPass) laneNote() []phrase.Phrase {
	if len(ps.lane) == 0 {
		return nil
	}
	ids := make([]string, 0, len(ps.lane))
	for _, n := range ps.ready {
		if ps.lane[n.ID] {
			ids = append(ids, fmt.Sprint(n.ID))
		}
	}
	if len(ids) == 1 {
		return []phrase.Phrase{phrase.New("lane_keeps_one", phrase.S(ids[0]), phrase.N(ps.pol.ShortLaneNodes))}
	}
	return []phrase.Phrase{phrase.New("lane_keeps", phrase.S(strings.Join(ids, ", ")), phrase.N(ps.pol.ShortLaneNodes))}
}

// candidates lists the removable ready nodes in drain order: empty ones first (longest
// empty first), then busy ones by the expected end of their last task, then the short
// lane's reserve. With shrink, empty nodes beyond the warm reserve only, busy nodes only if
// they empty within the drain buffer, and never the short lane's nodes.
func (ps *poolPass) candidates(shrink bool) []candidate {
	var empty, busy, lane []candidate
	for _, n := range ps.ready {
		if n.MachineID == "" || shrink && ps.lane[n.ID] {
			continue
		}
		if ps.lane[n.ID] {
			lane = append(lane, candidate{n, ps.freeAt(n), phrase.New("lane_node", phrase.ID(n.ID))})
			continue
		}
		if len(n.Tasks) == 0 {
			since := ps.plan.Unneeded[n.ID]
			empty = append(empty, candidate{n, ps.now, phrase.New("node_empty_for", phrase.ID(n.ID), phrase.Dur(ps.now.Sub(since)))})
			continue
		}
		free := ps.freeAt(n)
		if shrink && (free.IsZero() || free.Sub(ps.now) > ps.pol.DrainBuffer) {
			continue
		}
		why := phrase.New("node_tasks_end", phrase.ID(n.ID), phrase.N(len(n.Tasks)), phrase.Dur(free.Sub(ps.now)))
		if free.IsZero() {
			why = phrase.New("node_no_end", phrase.ID(n.ID))
		}
		busy = append(busy, candidate{n, free, why})
	}
	slices.SortStableFunc(empty, func(a, b candidate) int {
		return ps.plan.Unneeded[a.node.ID].Compare(ps.plan.Unneeded[b.node.ID])
	})
	slices.SortStableFunc(busy, func(a, b candidate) int {
		switch {
		case a.freeAt.IsZero() != b.freeAt.IsZero():
			if a.freeAt.IsZero() {
				return 1
			}
			return -1
		}
		return a.freeAt.Compare(b.freeAt)
	})
	if shrink {
		// Empty nodes no provider made count toward the reserve too, but are never drained.
		keep := max(ps.pol.ReservedMin-len(ps.booting)-(ps.empty-len(empty)), 0)
		empty = empty[:max(len(empty)-keep, 0)]
	}
	return append(append(empty, busy...), lane...)
}

// freeAt is when the node's last task ends by its expected end (its max runtime once it
// outlived the estimate); zero when some task has neither.
func (ps *poolPass) freeAt(n Node) time.Time {
	var last time.Time
	for _, t := range n.Tasks {
		end := t.EstEnd
		if !end.After(ps.now) {
			end = t.MaxEnd
		}
		if end.IsZero() {
			return time.Time{}
		}
		if end.After(last) {
			last = end
		}
	}
	if last.Before(ps.now) {
		last = ps.now
	}
	return last
}

// memoryHeld reports whether cond held over [now−window, now]: for the last point at or
// before the window's start (the state when the window began) and every later one. ok is
// false when the points do not reach back to the window's start or the newest is older than
// the window; held is then false. mean is the mean of the points considered.
func memoryHeld(pts []MemoryPoint, now time.Time, window time.Duration, cond func(float64) bool) (held bool, mean float64, ok bool) {
	start := now.Add(-window)
	first := -1
	for i, p := range pts {
		if !p.At.After(start) {
			first = i
		}
	}
	if first < 0 || now.Sub(pts[len(pts)-1].At) > window {
		return false, 0, false
	}
	held = true
	sum, n := 0.0, 0
	for _, p := range pts[first:] {
		if p.At.After(now) {
			break
		}
		sum += p.UsedPct
		n++
		held = held && cond(p.UsedPct)
	}
	return held, sum / float64(n), true
}

// joinNeeds is every reason for more nodes, the first being the main one.
func joinNeeds(why []need) phrase.List {
	parts := make(phrase.List, len(why))
	for i, w := range why {
		parts[i] = w.detail
	}
	return parts
}

func ceilDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// fmtDur writes a duration the way pages do: 3m, 1h5m, 45s, 2m30s.
func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	if d <= 0 {
		return "0s"
	}
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s > 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}
