package scheduler

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"time"
)

// Decide is one scheduling pass over a snapshot: which pending tasks start now and on which
// cards, and why each other task waits. It is pure and deterministic: the same snapshot, now
// and policy give the same plan, in production, demo and replay alike.
//
// Phases:
//
//  1. Order. Pending tasks are sorted (buildQueue): lane (short first: the lane the task was
//     submitted to, which the store holds to the short lane's runtime limit), priority
//     (urgent, high, normal, low), fairness (lower decayed usage per share weight first), submit time, id.
//  2. Gate, in queue order. A task asking for no GPU is invalid; one asking more than the
//     schedulable nodes of its spec could give even all free waits with
//     ReasonNoSuchCapacity; a task whose data is not ready waits with ReasonDataNotReady. A
//     deferrable task outside the off-peak window is set aside for phase 5. Quota: a task
//     that would take its project past a concurrent limit (all specs, or its spec), or whose
//     project's budget is spent, waits with ReasonQuota unless the project may overflow; then
//     it runs with Placement.Overflow.
//  3. Place. A task that fits on one node goes to the node of its spec with the fewest free
//     cards that still fit (ties: lowest node id; across specs for a spec-any task: fewest
//     free cards, then node id) and takes the lowest-index free cards. A task larger than every
//     node of its spec (for a spec-any task: every node) takes whole free nodes of one spec
//     only: the biggest first (ties: lowest id) until the rest fits on one, which is the
//     smallest whole free node that holds the rest; a spec-any one tries first the spec with
//     the fewest whole free cards. It gets exactly the GPUs it asked for; cards left on its
//     last node stay free for others. Draining, lost or not-ready nodes take nothing.
//     Short-only nodes (a pool's short-lane reserve, Node.ShortOnly) take no long task, and
//     count for no long task's capacity or reservation; a short task tries them first.
//  4. Reserve and backfill (EASY, one head per spec). The first task in queue order that
//     passes the gates but cannot be placed becomes the head of its spec and gets a
//     reservation: the earliest time its cards come free on one node (or, for a task larger
//     than a node, enough whole nodes) if running tasks end as expected (start + estimate,
//     else start + max runtime), with the spare cards that node will have beyond the head's
//     need. A later task may then use a reserved node only if it ends by its max runtime
//     (the conservative bound; none means never) before the reservation, or takes no more
//     than the node's remaining spare cards. Later blocked tasks of a spec that already has
//     a head get no reservation. With Policy.Backfill off, nothing behind a head starts on
//     its spec. There is no preemption.
//  5. Deferrable tasks outside the off-peak window come last, in queue order: each may take
//     cards only of a spec for which no ready task that passed the gates is left waiting
//     (for a spec-any waiter: every spec it could use). Otherwise it waits with
//     ReasonOffPeakOnly. Cards therefore never sit free only because a task is deferrable.
//  6. Explain. Each task not placed gets a Reason, its 1-based position among the waiting
//     tasks of its lane, and an estimated start (see below).
//  7. Give up and stop. Live nodes silent since before Snapshot.LostBefore are lost
//     (Plan.LostNodes); running tasks past their max runtime are to be stopped (Plan.Stops).
//     Both take effect when the plan is applied; this pass still counts their cards as held.
//
// ETA: Decide replays the waiting queue in order against each place's cards, counted as one
// pool per place whose cards come free at the ends of running and just-placed tasks and, for
// ETAP50 only, as the pool's growth brings new machines (Snapshot.Growth). Each waiting task
// starts when the cards it needs are free, no earlier than its floor: when they come free on
// one node (whole nodes for a task larger than a node) or new machines bring them (a head:
// its reservation by the ends the ETAs expect, or new machines; a task waiting for its
// project's booked window: the window). It holds the cards that come free last by then for
// its runtime, so that those free earlier stay for the tasks after it that fit before. A task
// waiting on its project's concurrent limit also takes the limit's cards as the project's
// running tasks end, as the scheduler gives them: whenever they come free, each task that
// fits, in queue order (Waiting.Quota says which limit and by how much; see quota_fit.go); a
// deferrable task comes after all others and takes no card of a new machine. ETAP50 uses
// expected ends and runtimes: estimates scaled by how the project's recent tasks ran against
// theirs (Snapshot.Runtimes), else max runtimes; ETAP90 the max-runtime bounds, without
// growth, and is never earlier than ETAP50. Both waits are then stretched by how the queue's
// recent estimates of the same kind fared (Snapshot.Stretch, see ETAHistory). A spec-any task
// takes the place where it would start first by ETAP50. Only the first Policy.ETADepth tasks
// per asked spec are replayed; tasks beyond them, tasks waiting for data, a budget, a
// guaranteed share, a service cap or capacity that does not exist, and tasks behind a card
// with no expected end get a zero (unknown) ETA.
//
// Cost: one sort of the queue, then near-constant work per task: free nodes are indexed per
// spec by free-card count (bitsets by node id), so a best fit reads at most one bucket per
// count; a full spec is rejected by its free total; a reservation is computed once per spec,
// and a floor once per distinct ask (place, cards, lane); a replayed task costs a binary
// search and a move of its place's sorted slots.
func Decide(snap Snapshot, now time.Time, pol Policy) Plan {
	d := newDecider(&snap, now, pol)
	d.gateAndPlace()
	d.placeDeferred()
	qr := d.estimate()
	plan := d.explain()
	qr.explain(plan.Waiting)
	plan.LostNodes = lostNodes(snap.Nodes, snap.LostBefore)
	plan.Stops = overRuntime(snap.Running, now)
	return plan
}

// lostNodes are the live nodes last seen before cutoff, by id; none when cutoff is zero.
func lostNodes(nodes []Node, cutoff time.Time) []int64 {
	var out []int64
	for _, n := range nodes {
		if !cutoff.IsZero() && n.Live && n.LastSeen.Before(cutoff) {
			out = append(out, n.ID)
		}
	}
	slices.Sort(out)
	return out
}

// overRuntime are the running tasks that have run longer than their max runtime, by id.
func overRuntime(running []Running, now time.Time) []Stop {
	var out []Stop
	for _, r := range running {
		if r.MaxRuntime > 0 && now.Sub(r.StartedAt) > r.MaxRuntime {
			out = append(out, Stop{TaskID: r.TaskID, MaxRuntime: r.MaxRuntime})
		}
	}
	slices.SortFunc(out, func(a, b Stop) int { return cmp.Compare(a.TaskID, b.TaskID) })
	return out
}

// Internal reason codes, indexes into reasons.
const (
	rNone uint8 = iota
	rNoFreeGPUs
	rDataNotReady
	rOffPeakOnly
	rQuota
	rBehind
	rNoSuchCapacity
	rInvalid
	rReservationWindow
	rNoSuitablePlace
)

var reasons = [...]Reason{"", ReasonNoFreeGPUs, ReasonDataNotReady, ReasonOffPeakOnly,
	ReasonQuota, ReasonBehind, ReasonNoSuchCapacity, ReasonInvalid, ReasonReservationWindow, ReasonNoSuitablePlace}

var details = [...]string{"", DetailBudgetExhausted, DetailConcurrentLimit, DetailGuaranteedShare, DetailBooked, DetailServiceLimit,
	DetailNoQuota, DetailNoInterconnect, DetailInterNodeBelow, DetailStorageBelow}

// detailLacks is the index in details of the first attribute a place may lack, in the order
// lacks checks them.
const detailLacks = 7

// Place sets of a task that accepts any place, or none that a node has; below specNone,
// none whose pool states what the task needs (specLacks - k: details[detailLacks+k]).
const (
	specAny   = -1
	specNone  = -2
	specLacks = -3
)

// tstate is the task at one queue position: the facts Decide needs, copied once from the
// snapshot so that the passes read memory in order, and what Decide learns.
type tstate struct {
	id       int64
	d50, d90 time.Duration // expected and latest runtimes, see durations
	e50      time.Duration // the expected runtime the ETAs read, see etaRuntime
	ahead    int64
	minStart int64 // earliest start for the ETA replay (reservation or window start)
	eta50    int64
	eta90    int64
	gpus     int32 // asked cards, clamped; 0 when fewer than one
	spec     int32 // the places it accepts: an index into decider.sets, specAny or specNone
	where    int32 // the place it starts or is expected to start on, or -1
	proj     int32
	reason   uint8
	detail   uint8
	lane     uint8
	ready    bool
	deferrable,
	service,
	placed,
	head,
	deferred bool
}

// placeSets interns the sets of places tasks accept, so that a queue of a handful of specs
// and regions costs a map lookup per task and one list per distinct ask.
type placeSets struct {
	key  map[string]int32
	sets [][]int32
	// last remembers the previous ask (a queue is often runs of one spec).
	lastKey string
	last    int32
	buf     []byte
}

// index is the set of places task t accepts: the places of its specs (Specs, else Spec,
// else every spec) in its regions (none: every region) whose pools state what it needs
// (lacks). specAny when it accepts every place, specNone when no node is of what it asks,
// below it (specLacks) when every such place lacks something.
func (ps *placeSets) index(t *Pending, f *fleet) int32 {
	needs := t.MinInterNodeGbps > 0 || t.MinStorageMBps > 0 || !t.AllowNoInterconnect && int64(t.GPUs) > int64(f.noInterSize)
	if len(t.Specs) == 0 && len(t.Regions) == 0 && !needs {
		if t.Spec == "" {
			return specAny
		}
		return ps.intern(t.Spec, t, f)
	}
	ps.buf = append(ps.buf[:0], t.Spec...)
	for _, n := range t.Specs {
		ps.buf = append(append(ps.buf, 0), n...)
	}
	ps.buf = append(ps.buf, 1)
	for _, r := range t.Regions {
		ps.buf = append(append(ps.buf, 0), r...)
	}
	if needs {
		// The places a task is kept off for being larger than their nodes grow with its
		// cards: how many there are tells the sets apart.
		big := 0
		for s := range f.specs {
			if sp := &f.specs[s]; sp.attrs.noInter && int64(t.GPUs) > int64(sp.nodeSize) && !t.AllowNoInterconnect {
				big++
			}
		}
		ps.buf = append(ps.buf, 2)
		ps.buf = binary.AppendUvarint(ps.buf, uint64(max(t.MinInterNodeGbps, 0)))
		ps.buf = binary.AppendUvarint(ps.buf, uint64(max(t.MinStorageMBps, 0)))
		ps.buf = binary.AppendUvarint(ps.buf, uint64(big))
	}
	if s, ok := ps.key[string(ps.buf)]; ok { // no allocation for the lookup
		return s
	}
	return ps.intern(string(ps.buf), t, f)
}

// lacks is what place p lacks of what t needs, as an index into details past detailLacks,
// in the order checked; -1 when nothing. An unstated attribute meets no minimum but keeps no
// task off for being larger than a node.
func lacks(t *Pending, sp *fspec) int {
	switch {
	case sp.attrs.noInter && !t.AllowNoInterconnect && int64(t.GPUs) > int64(sp.nodeSize):
		return 0
	case t.MinInterNodeGbps > 0 && int64(sp.attrs.interGbps) < int64(t.MinInterNodeGbps):
		return 1
	case t.MinStorageMBps > 0 && int64(sp.attrs.storage) < int64(t.MinStorageMBps):
		return 2
	}
	return -1
}

func (ps *placeSets) intern(key string, t *Pending, f *fleet) int32 {
	if key == ps.lastKey && ps.key != nil {
		return ps.last
	}
	s, ok := ps.key[key]
	if !ok {
		s = ps.build(t, f)
		if ps.key == nil {
			ps.key = make(map[string]int32)
		}
		ps.key[key] = s
	}
	ps.lastKey, ps.last = key, s
	return s
}

// build lists the places t accepts, in place order.
func (ps *placeSets) build(t *Pending, f *fleet) int32 {
	names := t.Specs
	if len(names) == 0 && t.Spec != "" {
		names = []string{t.Spec}
	}
	var out []int32
	lack := -1 // the first thing a place the task would otherwise take lacks
	add := func(p int32) {
		if len(t.Regions) > 0 && !slices.Contains(t.Regions, f.specs[p].region) {
			return
		}
		if k := lacks(t, &f.specs[p]); k >= 0 {
			if lack < 0 || k < lack {
				lack = k
			}
			return
		}
		out = append(out, p)
	}
	if len(names) == 0 {
		for p := range f.specs {
			add(int32(p))
		}
	}
	for _, n := range names {
		for _, p := range f.byName[n] {
			add(p)
		}
	}
	if len(out) == 0 {
		if lack >= 0 {
			return specLacks - int32(lack)
		}
		return specNone
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(names) == 0 && len(out) == len(f.specs) {
		return specAny
	}
	ps.sets = append(ps.sets, out)
	return int32(len(ps.sets) - 1)
}

// pquota is a project's quota state and the cards it holds.
type pquota struct {
	q      *QuotaState
	held   int32
	bySpec []int32 // per spec index; only with per-spec limits or no-quota caps
	limit  []int32 // per spec index, -1 for none; nil without per-spec limits
	noq    []int32 // per spec index, the no-quota cap or -1 for none; nil without any
}

// resv is a head's reservation.
type resv struct {
	pos   int32 // queue position of the head
	task  int64
	spec  int32
	at    int64
	nodes []int32
	need  []int32
	spare []int32 // at reservation time
}

type decider struct {
	snap     *Snapshot
	now      time.Time
	pol      Policy
	inWindow bool
	f        *fleet
	q        queue
	st       []tstate
	quota    []pquota
	svc      []svcCap // per project; nil when no project caps its services
	res      []resv
	ps       placeSets
	// pref is each queue position's data region; nil when no task names one.
	pref     []string
	guar     [][]gshare // per spec name (fleet.names): the guaranteed shares and bookings of it; nil when none
	booked   bool       // some booking holds cards now
	waitSpec []bool     // per spec: a gated, ready task is left waiting for its cards
	plan     Plan
	gpuBuf   []int64
	nodeBuf  []int64
	// scratch
	cand, inQ, overQ, pick, sub []int32
	evs                         []event
	order                       []int32
	// placeEvs are each place's events by node while len(fleet.events) is placeEvsAt (see
	// placeEvents).
	placeEvs   map[int32][]event
	placeEvsAt int
	// odds are the running tasks' ends as odds, by index in the snapshot's Running, made
	// when a floor first reads them (see likelyFree).
	odds []endOdds
	// long is true while a long task is being placed or reserved for: short-only nodes are
	// not for it. reserveOnly is true while a short task tries the short-only nodes first.
	long, reserveOnly bool
}

func newDecider(snap *Snapshot, now time.Time, pol Policy) *decider {
	pol = pol.normalized()
	d := &decider{snap: snap, now: now, pol: pol}
	d.inWindow = InOffPeak(now, pol)
	d.f = newFleet(snap)
	d.f.hold(snap.Running, now, d.etaEnd)
	d.q = buildQueue(snap.Pending, snap.Projects, &d.pol)
	// Copy each task's facts to its queue position, reading the snapshot in input order.
	d.st = make([]tstate, len(d.q.keys))
	at := make([]int32, len(d.q.keys))
	for i, k := range d.q.keys {
		at[k.idx] = int32(i)
		d.st[i].lane = k.lane()
	}
	for i := range snap.Pending {
		t := &snap.Pending[i]
		d50, d90 := durations(t.EstRuntime, t.MaxRuntime)
		st := &d.st[at[i]]
		*st = tstate{id: t.ID, d50: d50, d90: d90, e50: d.etaRuntime(t.Project, t.EstRuntime, t.MaxRuntime), eta50: never, eta90: never,
			gpus: int32(min(max(t.GPUs, 0), math.MaxInt32)), spec: d.ps.index(t, d.f), where: -1,
			proj: d.q.projOf[i], lane: st.lane, ready: t.DataReady, deferrable: t.Deferrable, service: t.Service}
		if t.DataRegion != "" {
			if d.pref == nil {
				d.pref = make([]string, len(snap.Pending))
			}
			d.pref[at[i]] = t.DataRegion
		}
	}
	d.waitSpec = make([]bool, len(d.f.specs))
	free := 0
	for s := range d.f.specs {
		free += int(d.f.specs[s].freeGPUs)
	}
	d.gpuBuf = make([]int64, 0, free)
	d.nodeBuf = make([]int64, 0, free)
	d.plan.Placements = make([]Placement, 0, min(free, len(snap.Pending)))
	d.initQuota()
	d.initServiceCaps()
	d.initGuarantees()
	return d
}

func (d *decider) initQuota() {
	d.quota = make([]pquota, len(d.q.projName))
	if len(d.snap.Quotas) == 0 {
		return
	}
	found := false
	for i, name := range d.q.projName {
		qs, ok := d.snap.Quotas[name]
		if !ok {
			continue
		}
		found = true
		pq := &d.quota[i]
		pq.q = &qs
		if len(qs.MaxGPUsBySpec) > 0 || len(qs.NoQuotaMaxGPUs) > 0 {
			pq.bySpec = make([]int32, len(d.f.names))
		}
		pq.limit = d.perSpec(qs.MaxGPUsBySpec)
		pq.noq = d.perSpec(qs.NoQuotaMaxGPUs)
	}
	if !found {
		return
	}
	// What each project holds is QuotaUse's count, which the pages show.
	use := useOf(heldCards(d.snap.Running, func(g int64) (place, bool) {
		s, ok := d.f.specOfGPU[g]
		if !ok {
			return place{}, false
		}
		return place{d.f.specs[s].name, d.f.specs[s].region}, true
	}))
	for name, u := range use {
		p, ok := d.q.projIdx[name]
		if !ok || d.quota[p].q == nil {
			continue
		}
		pq := &d.quota[p]
		pq.held = int32(min(u.Total, math.MaxInt32))
		if pq.bySpec == nil {
			continue
		}
		for spec, n := range u.BySpec {
			if places, ok := d.f.byName[spec]; ok {
				pq.bySpec[d.f.specs[places[0]].nameIdx] = int32(min(n, math.MaxInt32))
			}
		}
	}
}

// perSpec lays caps by spec name out by spec index, -1 for a spec without one; nil for none.
func (d *decider) perSpec(caps map[string]int) []int32 {
	if len(caps) == 0 {
		return nil
	}
	out := make([]int32, len(d.f.names))
	for s := range out {
		out[s] = -1
	}
	for spec, n := range caps {
		if places, ok := d.f.byName[spec]; ok {
			out[d.f.specs[places[0]].nameIdx] = int32(min(max(n, 0), math.MaxInt32))
		}
	}
	return out
}

// dropNoQuota leaves out of d.cand the places of the specs that project p has no quota on
// and may not take g more cards of (its pools' no-quota rule); it reports whether it left
// any out.
func (d *decider) dropNoQuota(p, g int32) bool {
	pq := &d.quota[p]
	if pq.noq == nil {
		return false
	}
	n := 0
	for _, s := range d.cand {
		if ns := d.f.specs[s].nameIdx; pq.noq[ns] < 0 || pq.bySpec[ns]+g <= pq.noq[ns] {
			d.cand[n] = s
			n++
		}
	}
	dropped := n < len(d.cand)
	d.cand = d.cand[:n]
	return dropped
}

// overQuota reports whether g more cards of place s take project p past its quota, and why.
// Limits per spec count every region of the spec.
func (d *decider) overQuota(p int32, s int32, g int32) (bool, uint8) {
	pq := &d.quota[p]
	if pq.q == nil {
		return false, 0
	}
	if pq.q.BudgetExhausted || (pq.q.ExhaustedSpecs != nil && pq.q.ExhaustedSpecs[d.f.specs[s].name]) {
		return true, 1
	}
	if pq.q.MaxGPUs > 0 && int64(pq.held)+int64(g) > int64(pq.q.MaxGPUs) {
		return true, 2
	}
	if ns := d.f.specs[s].nameIdx; pq.limit != nil && pq.limit[ns] >= 0 && pq.bySpec[ns]+g > pq.limit[ns] {
		return true, 2
	}
	return false, 0
}

// candidates lists in d.cand the places a task accepting the place set spec and g cards
// could ever run on: its one place if the schedulable nodes hold g cards (for a long task:
// those not short-only); for a task accepting several that fits on a node of one of them,
// every one with a node that big, else every one holding g cards.
func (d *decider) candidates(spec int32, g int32, lane uint8) {
	d.cand = d.cand[:0]
	f := d.f
	if spec <= specNone {
		return
	}
	total := func(sp *fspec) int32 {
		if lane == laneLong {
			return sp.longTotal
		}
		return sp.total
	}
	if spec >= 0 && len(d.ps.sets[spec]) == 1 {
		if s := d.ps.sets[spec][0]; total(&f.specs[s]) >= g {
			d.cand = append(d.cand, s)
		}
		return
	}
	if spec == specAny {
		single := g <= f.maxSize
		for s := range f.specs {
			sp := &f.specs[s]
			if (single && sp.maxSize >= g) || (!single && total(sp) >= g) {
				d.cand = append(d.cand, int32(s))
			}
		}
		return
	}
	places := d.ps.sets[spec]
	maxSize := int32(0)
	for _, s := range places {
		maxSize = max(maxSize, f.specs[s].maxSize)
	}
	single := g <= maxSize
	for _, s := range places {
		sp := &f.specs[s]
		if (single && sp.maxSize >= g) || (!single && total(sp) >= g) {
			d.cand = append(d.cand, s)
		}
	}
}

// gateAndPlace walks the queue once: gates, then placement, reservation or a reason.
func (d *decider) gateAndPlace() {
	for i := range d.st {
		st := &d.st[i]
		if st.gpus < 1 {
			st.reason = rInvalid
			continue
		}
		d.candidates(st.spec, st.gpus, st.lane)
		switch {
		case len(d.cand) == 0 && st.spec <= specLacks:
			st.reason, st.detail = rNoSuitablePlace, uint8(detailLacks+specLacks-st.spec)
		case len(d.cand) == 0:
			st.reason = rNoSuchCapacity
		case !st.ready:
			st.reason = rDataNotReady
		case st.deferrable && !d.inWindow:
			st.reason = rOffPeakOnly
			st.deferred = true
		default:
			d.placeOrBlock(int32(i), true)
		}
	}
}

// placeDeferred gives deferrable tasks outside the window the cards nobody waits for.
func (d *decider) placeDeferred() {
	if d.inWindow {
		return
	}
	for i := range d.st {
		st := &d.st[i]
		if !st.deferred {
			continue
		}
		d.candidates(st.spec, st.gpus, st.lane)
		n := 0
		for _, s := range d.cand {
			if !d.waitSpec[s] {
				d.cand[n] = s
				n++
			}
		}
		d.cand = d.cand[:n]
		if n == 0 {
			continue
		}
		if !d.placeOrBlock(int32(i), false) && st.reason != rQuota {
			st.reason = rOffPeakOnly
		}
	}
}

// placeOrBlock places the task at queue position i on one of d.cand, or records why not. In
// the main pass a blocked task becomes its spec's head or waits behind one.
func (d *decider) placeOrBlock(i int32, main bool) bool {
	st := &d.st[i]
	p, g := st.proj, st.gpus
	if st.service && !d.withinServiceCap(p, g) {
		st.reason, st.detail = rQuota, 5
		return false
	}
	if d.dropNoQuota(p, g) && len(d.cand) == 0 {
		st.reason, st.detail = rQuota, 6
		return false
	}
	places := len(d.cand)
	d.long = st.lane == laneLong
	d.inQ, d.overQ = d.inQ[:0], d.overQ[:0]
	var why uint8
	for _, s := range d.cand {
		if over, w := d.overQuota(p, s, g); over {
			d.overQ = append(d.overQ, s)
			if why == 0 {
				why = w
			}
		} else {
			d.inQ = append(d.inQ, s)
		}
	}
	overflow := d.quota[p].q != nil && d.quota[p].q.Overflow
	if len(d.inQ) == 0 && !overflow {
		st.reason, st.detail = rQuota, why
		return false
	}
	end90 := after(0, st.d90)
	ownAt := int64(never) // the project's own booking's window start, when it left places out
	if d.guar != nil && (st.lane == laneLong || d.booked) {
		short := st.lane != laneLong
		var own, own2, booked, booked2 bool
		at, at2 := int64(0), int64(never)
		d.inQ, own, at, booked = d.keepHeld(p, g, short, end90, d.inQ)
		if overflow {
			d.overQ, own2, at2, booked2 = d.keepHeld(p, g, short, end90, d.overQ)
		}
		if len(d.inQ) == 0 && (!overflow || len(d.overQ) == 0) {
			switch {
			case own || own2:
				st.reason, st.minStart = rReservationWindow, min(at, at2)
			case booked || booked2:
				st.reason, st.detail = rNoFreeGPUs, 4
			default:
				st.reason, st.detail = rQuota, 3
			}
			return false
		}
		if own || own2 {
			ownAt = min(at, at2)
		}
	}
	if d.try(i, end90, d.inQ, false) || overflow && len(d.overQ) > 0 && d.try(i, end90, d.overQ, true) {
		pl := &d.plan.Placements[len(d.plan.Placements)-1]
		switch {
		case d.prefOf(i) != "" && pl.Region == d.prefOf(i):
			pl.Why = WhyDataRegion
		case places == 1:
			pl.Why = WhyOnly
		default:
			pl.Why = WhyFirstFree
		}
		return true
	}
	st.reason = rNoFreeGPUs
	if ownAt < never {
		// Nothing free elsewhere: it waits for its own booking's window (in a region).
		st.reason, st.minStart = rReservationWindow, ownAt
		return false
	}
	if !main {
		return false
	}
	// Blocked: the permitted specs are now wanted by a waiting task.
	permitted := d.inQ
	if overflow {
		permitted = append(permitted, d.overQ...)
	}
	d.cand = d.cand[:0]
	for _, s := range permitted {
		d.waitSpec[s] = true
		if d.f.specs[s].res < 0 {
			d.cand = append(d.cand, s)
		}
	}
	if len(d.cand) > 0 {
		d.reserve(i, d.cand)
		return false
	}
	for _, s := range permitted {
		if d.f.fitsNow(s, g) {
			st.reason = rBehind
			st.ahead = d.res[d.f.specs[s].res].task
			break
		}
	}
	return false
}

// allowed reports whether the task being placed (long when d.long) may take use cards of node
// n: never a short-only node for a long task, only one while d.reserveOnly, and, ending (at the latest) at end90, leaving
// every reservation intact.
func (d *decider) allowed(n *fnode, use int32, end90 int64) bool {
	if n.shortOnly && d.long || d.reserveOnly && !n.shortOnly {
		return false
	}
	if !d.pol.Backfill && d.f.specs[n.spec].res >= 0 {
		return false
	}
	if n.res < 0 {
		return true
	}
	return end90 <= d.res[n.res].at || use <= n.spare
}

// prefOf is the data region of the task at queue position i; "" for none.
func (d *decider) prefOf(i int32) string {
	if d.pref == nil {
		return ""
	}
	return d.pref[i]
}

// try places the task on the best of specs (places); it commits and reports true on
// success. A task whose data is in a region tries that region's places first.
func (d *decider) try(i int32, end90 int64, specs []int32, overflow bool) bool {
	if pref := d.prefOf(i); pref != "" {
		d.sub = d.sub[:0]
		for _, s := range specs {
			if d.f.specs[s].region == pref {
				d.sub = append(d.sub, s)
			}
		}
		if len(d.sub) > 0 && len(d.sub) < len(specs) && d.tryShortFirst(i, end90, d.sub, overflow) {
			return true
		}
	}
	return d.tryShortFirst(i, end90, specs, overflow)
}

// tryShortFirst is one attempt of try. A short task tries the short-only nodes first,
// leaving the others to long tasks.
func (d *decider) tryShortFirst(i int32, end90 int64, specs []int32, overflow bool) bool {
	if !d.long && d.f.shortOnly > 0 {
		d.reserveOnly = true
		ok := d.tryOn(i, end90, specs, overflow)
		d.reserveOnly = false
		if ok {
			return true
		}
	}
	return d.tryOn(i, end90, specs, overflow)
}

// tryOn is one attempt of tryShortFirst.
func (d *decider) tryOn(i int32, end90 int64, specs []int32, overflow bool) bool {
	if len(specs) == 0 {
		return false
	}
	f := d.f
	g := d.st[i].gpus
	// The candidates are all single-node specs or all whole-node specs (see candidates).
	if g <= f.specs[specs[0]].maxSize {
		best, bestFree := int32(-1), int32(0)
		for _, s := range specs {
			n, free := d.bestFit(s, g, end90)
			if n < 0 {
				continue
			}
			if best < 0 || free < bestFree || free == bestFree && f.nodes[n].id < f.nodes[best].id {
				best, bestFree = n, free
			}
		}
		if best < 0 {
			return false
		}
		d.pick = append(d.pick[:0], best)
		d.commit(i, end90, overflow)
		return true
	}
	// Whole nodes: try the spec whose whole free cards fit the task most tightly first.
	d.order = d.order[:0]
	for _, s := range specs {
		if f.specs[s].wholeGPUs >= g {
			d.order = append(d.order, s)
		}
	}
	sortBy(d.order, func(s int32) int64 { return int64(f.specs[s].wholeGPUs) })
	for _, s := range d.order {
		if d.wholeNodes(s, g, end90) {
			d.commit(i, end90, overflow)
			return true
		}
	}
	return false
}

// bestFit finds the allowed node of spec s with the fewest free cards that still holds g.
func (d *decider) bestFit(s int32, g int32, end90 int64) (int32, int32) {
	f := d.f
	sp := &f.specs[s]
	if g > sp.maxSize || sp.freeGPUs < g {
		return -1, 0
	}
	for b := g; b <= sp.maxSize; b++ {
		if sp.count[b] == 0 {
			continue
		}
		for w, word := range sp.bucket[b] {
			for word != 0 {
				tz := trailingZeros(word)
				word &= word - 1
				ni := sp.first + int32(w*64+tz)
				if d.allowed(&f.nodes[ni], g, end90) {
					return ni, b
				}
			}
		}
	}
	return -1, 0
}

// wholeNodes picks into d.pick whole free allowed nodes of spec s for g cards: the biggest
// first until the rest fits on one, then the smallest that holds the rest.
func (d *decider) wholeNodes(s int32, g int32, end90 int64) bool {
	f := d.f
	sp := &f.specs[s]
	d.pick = d.pick[:0]
	var sum int64
	for w, word := range sp.whole {
		for word != 0 {
			tz := trailingZeros(word)
			word &= word - 1
			ni := sp.first + int32(w*64+tz)
			if n := &f.nodes[ni]; d.allowed(n, n.size, end90) {
				d.pick = append(d.pick, ni)
				sum += int64(n.size)
			}
		}
	}
	if sum < int64(g) {
		return false
	}
	// Biggest first, then lowest id (d.pick is in id order; the sort is stable).
	sortStableBy(d.pick, func(ni int32) int64 { return -int64(f.nodes[ni].size) })
	rest, k := g, 0
	for rest > 0 {
		fit := -1
		for j := k; j < len(d.pick); j++ {
			if sz := f.nodes[d.pick[j]].size; sz >= rest &&
				(fit < 0 || sz < f.nodes[d.pick[fit]].size ||
					sz == f.nodes[d.pick[fit]].size && f.nodes[d.pick[j]].id < f.nodes[d.pick[fit]].id) {
				fit = j
			}
		}
		if fit >= 0 {
			d.pick[k], d.pick[fit] = d.pick[fit], d.pick[k]
			k++
			break
		}
		rest -= f.nodes[d.pick[k]].size
		k++
	}
	d.pick = d.pick[:k]
	return true
}

// commit gives the task g cards of the nodes in d.pick, in order.
func (d *decider) commit(i int32, end90 int64, overflow bool) {
	f := d.f
	st := &d.st[i]
	st.placed, st.reason = true, rNone
	g := st.gpus
	end50 := after(0, st.d50)
	g0, n0 := len(d.gpuBuf), len(d.nodeBuf)
	rest := g
	spec := f.nodes[d.pick[0]].spec
	st.where = spec
	backfill := f.specs[spec].res >= 0
	for _, ni := range d.pick {
		n := &f.nodes[ni]
		use := min(rest, n.free)
		took := int32(0)
		for k := n.first; k < n.first+n.size && took < use; k++ {
			if !f.held[k] {
				f.held[k] = true
				d.gpuBuf = append(d.gpuBuf, f.gpuID[k])
				took++
			}
		}
		old := n.free
		n.free -= use
		f.setBits(ni, old, n.free)
		if n.res >= 0 && end90 > d.res[n.res].at {
			n.spare -= use
		}
		f.events = append(f.events, event{node: ni, n: use, run: -1, end50: end50, end90: end90, eta50: after(0, st.e50)})
		d.nodeBuf = append(d.nodeBuf, n.id)
		rest -= use
	}
	d.holdGuaranteed(st.proj, spec, g)
	if st.service {
		d.holdService(st.proj, spec, g)
	}
	if pq := &d.quota[st.proj]; pq.q != nil {
		pq.held += g
		if pq.bySpec != nil {
			pq.bySpec[f.specs[spec].nameIdx] += g
		}
	}
	d.plan.Placements = append(d.plan.Placements, Placement{
		TaskID:   st.id,
		Spec:     f.specs[spec].name,
		Region:   f.specs[spec].region,
		NodeIDs:  d.nodeBuf[n0:len(d.nodeBuf):len(d.nodeBuf)],
		GPUIDs:   d.gpuBuf[g0:len(d.gpuBuf):len(d.gpuBuf)],
		Overflow: overflow,
		Backfill: backfill,
	})
}

// explain assembles the waiting list in queue order with positions.
func (d *decider) explain() Plan {
	n := 0
	for i := range d.st {
		if !d.st[i].placed {
			n++
		}
	}
	d.plan.Waiting = make([]Waiting, 0, n)
	var pos [len(laneNames)]int
	for i := range d.st {
		st := &d.st[i]
		if st.placed {
			continue
		}
		lane := st.lane
		if st.service {
			lane = laneService
		}
		pos[lane]++
		w := Waiting{
			TaskID:   st.id,
			Lane:     laneNames[lane],
			Position: pos[lane],
			Reason:   reasons[st.reason],
			Detail:   details[st.detail],
			Ahead:    st.ahead,
			Head:     st.head,
			ETAP50:   d.at(st.eta50),
			ETAP90:   d.at(st.eta90),
		}
		if (st.reason == rNoFreeGPUs || st.reason == rNoSuchCapacity || st.reason == rNoSuitablePlace) && st.spec != specAny {
			w.Spec = askedSpec(&d.snap.Pending[d.q.keys[i].idx])
		}
		if st.where >= 0 {
			pl := &d.f.specs[st.where]
			w.PlaceSpec, w.PlaceRegion, w.PlaceWhy = pl.name, pl.region, d.whyWhere(int32(i))
		}
		d.plan.Waiting = append(d.plan.Waiting, w)
	}
	d.plan.Reservations = make([]Reservation, len(d.res))
	for i, r := range d.res {
		out := Reservation{TaskID: r.task, Spec: d.f.specs[r.spec].name, Region: d.f.specs[r.spec].region, At: d.at(r.at),
			Nodes: make([]ReservedNode, len(r.nodes))}
		for j, ni := range r.nodes {
			out.Nodes[j] = ReservedNode{NodeID: d.f.nodes[ni].id, GPUs: int(r.need[j]),
				Spare: int(r.spare[j])}
		}
		d.plan.Reservations[i] = out
	}
	return d.plan
}

// askedSpec is the one spec a task asks for, "" when it accepts any or several.
func askedSpec(t *Pending) string {
	switch {
	case len(t.Specs) == 1:
		return t.Specs[0]
	case len(t.Specs) > 1:
		return ""
	}
	return t.Spec
}

// whyWhere says why the waiting task at queue position i is expected to start where it is:
// in its data's region, the only place that could hold it, or where it starts first.
func (d *decider) whyWhere(i int32) string {
	st := &d.st[i]
	if pref := d.prefOf(i); pref != "" && d.f.specs[st.where].region == pref {
		return WhyDataRegion
	}
	d.candidates(st.spec, st.gpus, st.lane)
	if len(d.cand) == 1 {
		return WhyOnly
	}
	return WhyEarliest
}

// at turns an offset from now into a time; zero for unknown (0 offsets are "now", so the
// unknown marker is never).
func (d *decider) at(off int64) time.Time {
	if off == never || off < 0 {
		return time.Time{}
	}
	return d.now.Add(time.Duration(off))
}
