package scheduler

import (
	"fmt"
	"kashi/models"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDecideProperties runs Decide on random fleets and queues and advances a simulated clock
// over several ticks, starting the placed tasks and ending some running ones between ticks.
// Every tick must keep the invariants of checkInvariants.
func TestDecideProperties(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		c := genConfig{
			nodes:    1 + r.IntN(12),
			specs:    genSpecs[:1+r.IntN(len(genSpecs))],
			pending:  r.IntN(60),
			busy:     r.Float64(),
			bigTasks: true,
			quotas:   r.IntN(2) == 0,
		}
		if seed%10 == 0 { // a few bigger fleets of uniform nodes
			c.nodes, c.perNode, c.pending = 40+r.IntN(40), 8, 300
		}
		pol := DefaultPolicy(shanghai)
		pol.Backfill = seed%5 != 0
		now := t0.Add(time.Duration(r.IntN(24*60)) * time.Minute)
		snap := genSnapshot(r, c, now)
		for tick := range 6 {
			plan := Decide(snap, now, pol)
			name := fmt.Sprintf("seed %d tick %d (%v, backfill %v, now %v)", seed, tick, c, pol.Backfill,
				now.In(shanghai).Format("15:04"))
			if errs := checkInvariants(snap, now, pol, plan); len(errs) > 0 {
				for _, e := range errs[:min(len(errs), 10)] {
					t.Errorf("%s: %s", name, e)
				}
				t.FailNow()
			}
			now = now.Add(time.Duration(5+r.IntN(180)) * time.Minute)
			snap = advance(r, c, snap, plan, now)
		}
	}
}

// advance moves a snapshot to now: placed tasks start, running tasks past their latest end
// and some past their expected end finish, some data becomes ready, a few tasks arrive and a
// node may change state.
func advance(r *rand.Rand, c genConfig, snap Snapshot, plan Plan, now time.Time) Snapshot {
	byID := map[int64]Pending{}
	for _, p := range snap.Pending {
		byID[p.ID] = p
	}
	started := map[int64]bool{}
	var running []Running
	for _, run := range snap.Running {
		exp, latest := testEnds(run.StartedAt, run.EstRuntime, run.MaxRuntime)
		switch {
		case latest <= now.UnixNano():
		case exp <= now.UnixNano() && r.IntN(4) != 0:
		case r.IntN(10) == 0:
		default:
			running = append(running, run)
		}
	}
	for _, pl := range plan.Placements {
		p := byID[pl.TaskID]
		started[p.ID] = true
		running = append(running, Running{TaskID: p.ID, Project: p.Project, GPUIDs: pl.GPUIDs,
			StartedAt: now.Add(-time.Duration(r.IntN(60)) * time.Second), EstRuntime: p.EstRuntime,
			MaxRuntime: p.MaxRuntime})
	}
	var pending []Pending
	var maxID int64
	for _, p := range snap.Pending {
		maxID = max(maxID, p.ID)
		if started[p.ID] {
			continue
		}
		if !p.DataReady && r.IntN(3) == 0 {
			p.DataReady = true
		}
		pending = append(pending, p)
	}
	for i := range r.IntN(8) {
		pending = append(pending, genPending(r, c, maxID+int64(i)+1, []string{"vision", "speech", "llm"}, now))
	}
	nodes := slices.Clone(snap.Nodes)
	if len(nodes) > 0 && r.IntN(3) == 0 {
		i := r.IntN(len(nodes))
		nodes[i].Schedulable = !nodes[i].Schedulable
	}
	if len(nodes) > 0 && r.IntN(4) == 0 {
		i := r.IntN(len(nodes))
		nodes[i].ShortOnly = !nodes[i].ShortOnly
	}
	snap.Nodes, snap.Running, snap.Pending = nodes, running, pending
	return snap
}

// testEnds gives the expected and latest end of a task started at start in Unix nanoseconds,
// math.MaxInt64 for never: expected = start + estimate (capped by the max runtime), else
// start + max runtime.
func testEnds(start time.Time, est, maxRun time.Duration) (exp, latest int64) {
	latest = math.MaxInt64
	if maxRun > 0 {
		latest = start.Add(maxRun).UnixNano()
	}
	exp = latest
	if est > 0 && (maxRun <= 0 || est <= maxRun) {
		exp = start.Add(est).UnixNano()
	}
	return exp, latest
}

// checkInvariants lists what plan breaks of the rules Decide promises for snap at now.
func checkInvariants(snap Snapshot, now time.Time, pol Policy, plan Plan) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	// The fleet as the snapshot gives it.
	gpuNode := map[int64]*Node{}
	nodeByID := map[int64]*Node{}
	maxSize, total, longTotal := map[string]int{}, map[string]int{}, map[string]int{}
	allMax := 0
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		nodeByID[n.ID] = n
		for _, g := range n.GPUs {
			gpuNode[g.ID] = n
		}
		if n.Schedulable {
			maxSize[n.Spec] = max(maxSize[n.Spec], len(n.GPUs))
			total[n.Spec] += len(n.GPUs)
			if !n.ShortOnly {
				longTotal[n.Spec] += len(n.GPUs)
			}
			allMax = max(allMax, len(n.GPUs))
		}
	}
	held := map[int64]bool{} // by a task, or used outside Kashi
	for _, r := range snap.Running {
		for _, g := range r.GPUIDs {
			held[g] = true
		}
	}
	for _, n := range snap.Nodes {
		for _, g := range n.GPUs {
			held[g.ID] = held[g.ID] || g.Outside
		}
	}
	// Guarantees the running tasks leave unmet, by spec and project.
	startHeld := map[string]map[string]int{}
	for _, r := range snap.Running {
		for _, g := range r.GPUIDs {
			if n := gpuNode[g]; n != nil {
				if startHeld[r.Project] == nil {
					startHeld[r.Project] = map[string]int{}
				}
				startHeld[r.Project][n.Spec]++
			}
		}
	}
	unmetAtStart := map[string]map[string]bool{}
	for name, q := range snap.Quotas {
		for spec, g := range q.Guaranteed {
			if g > startHeld[name][spec] {
				if unmetAtStart[spec] == nil {
					unmetAtStart[spec] = map[string]bool{}
				}
				unmetAtStart[spec][name] = true
			}
		}
	}
	// guarded: another project's unmet guarantee may keep a long task of p off spec.
	guarded := func(p Pending, spec string) bool {
		if p.Queue == models.QueueShort {
			return false
		}
		for name := range unmetAtStart[spec] {
			if name != p.Project {
				return true
			}
		}
		return false
	}
	// overAtEnd: p's project is over its quota on spec once the plan is applied, as it must
	// have been when p's turn came if p gave the spec up (held cards only grow in a plan).
	endHeld, endHeldSpec := map[string]int{}, map[string]map[string]int{}
	addEnd := func(project string, gpus []int64) {
		for _, g := range gpus {
			endHeld[project]++
			if n := gpuNode[g]; n != nil {
				if endHeldSpec[project] == nil {
					endHeldSpec[project] = map[string]int{}
				}
				endHeldSpec[project][n.Spec]++
			}
		}
	}
	for _, r := range snap.Running {
		addEnd(r.Project, r.GPUIDs)
	}
	for _, pl := range plan.Placements {
		for _, p := range snap.Pending {
			if p.ID == pl.TaskID {
				addEnd(p.Project, pl.GPUIDs)
			}
		}
	}
	overAtEnd := func(p Pending, spec string) bool {
		q, ok := snap.Quotas[p.Project]
		if !ok || q.Overflow {
			return false
		}
		lim, has := q.MaxGPUsBySpec[spec]
		return q.BudgetExhausted || q.ExhaustedSpecs[spec] || q.MaxGPUs > 0 && endHeld[p.Project]+p.GPUs > q.MaxGPUs ||
			has && endHeldSpec[p.Project][spec]+p.GPUs > max(lim, 0)
	}
	canUse := func(p Pending, spec string) bool {
		tot := total[spec]
		if p.Queue != models.QueueShort {
			tot = longTotal[spec] // short-only nodes are not for it
		}
		if oneSpec(p) {
			return accepts(p, spec) && tot >= p.GPUs
		}
		if !accepts(p, spec) {
			return false
		}
		largest := allMax
		if len(p.Specs) > 0 {
			largest = 0
			for _, sp := range p.Specs {
				largest = max(largest, maxSize[sp])
			}
		}
		if p.GPUs <= largest {
			return maxSize[spec] >= p.GPUs
		}
		return tot >= p.GPUs
	}

	// Every task is placed or waiting, once.
	byID := map[int64]Pending{}
	for _, p := range snap.Pending {
		byID[p.ID] = p
	}
	order := queueOrder(snap.Pending, snap.Projects, pol)
	pos := map[int64]int{}
	for i, k := range order {
		pos[snap.Pending[k].ID] = i
	}
	seen := map[int64]bool{}
	for _, pl := range plan.Placements {
		if seen[pl.TaskID] {
			fail("task %d decided twice", pl.TaskID)
		}
		seen[pl.TaskID] = true
	}
	waiting := map[int64]Waiting{}
	for _, w := range plan.Waiting {
		if seen[w.TaskID] {
			fail("task %d decided twice", w.TaskID)
		}
		seen[w.TaskID] = true
		waiting[w.TaskID] = w
	}
	if len(seen) != len(snap.Pending) {
		fail("%d tasks decided, want %d", len(seen), len(snap.Pending))
	}

	// Placements: right cards, right count, right shape, gates kept.
	given := map[int64]int64{}
	usedNodes := map[int64]bool{}
	inWindow := InOffPeak(now, pol)
	for _, pl := range plan.Placements {
		p := byID[pl.TaskID]
		if len(pl.GPUIDs) != p.GPUs {
			fail("task %d got %d GPUs, asked %d", p.ID, len(pl.GPUIDs), p.GPUs)
		}
		if !p.DataReady {
			fail("task %d placed with its data not ready", p.ID)
		}
		if !accepts(p, pl.Spec) {
			fail("task %d asked %s %v, placed on %s", p.ID, p.Spec, p.Specs, pl.Spec)
		}
		perNode := map[int64]int{}
		for _, g := range pl.GPUIDs {
			n := gpuNode[g]
			switch {
			case n == nil:
				fail("task %d got unknown GPU %d", p.ID, g)
				continue
			case !n.Schedulable:
				fail("task %d placed on unschedulable node %d", p.ID, n.ID)
			case n.Spec != pl.Spec:
				fail("task %d placed on node %d of spec %s, placement says %s", p.ID, n.ID, n.Spec, pl.Spec)
			case held[g]:
				fail("task %d got GPU %d held by a running task", p.ID, g)
			case n.ShortOnly && p.Queue != models.QueueShort:
				fail("long task %d placed on short-only node %d", p.ID, n.ID)
			}
			if other, ok := given[g]; ok {
				fail("GPU %d given to tasks %d and %d", g, other, p.ID)
			}
			given[g] = p.ID
			perNode[n.ID]++
		}
		if !slices.Equal(slices.Sorted(func(yield func(int64) bool) {
			for id := range perNode {
				if !yield(id) {
					return
				}
			}
		}), slices.Sorted(slices.Values(pl.NodeIDs))) {
			fail("task %d: NodeIDs %v do not match its GPUs %v", p.ID, pl.NodeIDs, pl.GPUIDs)
		}
		if p.GPUs <= maxSize[pl.Spec] && len(pl.NodeIDs) != 1 {
			fail("task %d of %d GPUs spread over nodes %v", p.ID, p.GPUs, pl.NodeIDs)
		}
		if len(pl.NodeIDs) > 1 {
			for _, id := range pl.NodeIDs {
				n := nodeByID[id]
				for _, g := range n.GPUs {
					if held[g.ID] {
						fail("task %d took node %d, which was not wholly free", p.ID, id)
						break
					}
				}
				if usedNodes[id] {
					fail("task %d took node %d, already used in this plan", p.ID, id)
				}
			}
		}
		for _, id := range pl.NodeIDs {
			usedNodes[id] = true
		}
		shortOnly := true // every node of the placement is short-only: no long task could have it
		for _, id := range pl.NodeIDs {
			shortOnly = shortOnly && nodeByID[id].ShortOnly
		}
		if p.Deferrable && !inWindow {
			for _, w := range plan.Waiting {
				q := byID[w.TaskID]
				if shortOnly && q.Queue != models.QueueShort {
					continue
				}
				// A task kept from booked cards could not take the deferrable task's either.
				if (w.Reason == ReasonNoFreeGPUs || w.Reason == ReasonBehind) && !bookedFrom(snap, now, q, pl.Spec) && canUse(q, pl.Spec) && !guarded(q, pl.Spec) &&
					!overAtEnd(q, pl.Spec) {
					fail("deferrable task %d started off-window on %s while task %d waits for it", p.ID, pl.Spec, q.ID)
				}
			}
		}
	}

	// Quota: in plan order, a task within quota leaves it within; overflow only when over.
	heldBy := map[string]int{}
	heldBySpec := map[string]map[string]int{}
	addHeld := func(project, spec string, n int) {
		heldBy[project] += n
		if heldBySpec[project] == nil {
			heldBySpec[project] = map[string]int{}
		}
		heldBySpec[project][spec] += n
	}
	for _, r := range snap.Running {
		for _, g := range r.GPUIDs {
			if n := gpuNode[g]; n != nil {
				addHeld(r.Project, n.Spec, 1)
			} else {
				heldBy[r.Project]++
			}
		}
	}
	// Guaranteed shares: what other projects owe on a spec at a moment, and the spec's free
	// cards then (schedulable nodes only).
	free := map[string]int{}
	for _, n := range snap.Nodes {
		for _, g := range n.GPUs {
			if n.Schedulable && !held[g.ID] {
				free[n.Spec]++
			}
		}
	}
	owedBy := func(project, spec string) int {
		owed := 0
		for name, q := range snap.Quotas {
			if g := q.Guaranteed[spec]; name != project && g > heldBySpec[name][spec] {
				owed += g - heldBySpec[name][spec]
			}
		}
		return owed
	}
	for _, pl := range plan.Placements {
		p := byID[pl.TaskID]
		q, ok := snap.Quotas[p.Project]
		over := ok && (q.BudgetExhausted || q.MaxGPUs > 0 && heldBy[p.Project]+p.GPUs > q.MaxGPUs)
		if lim, has := q.MaxGPUsBySpec[pl.Spec]; ok && has && heldBySpec[p.Project][pl.Spec]+p.GPUs > lim {
			over = true
		}
		if over != pl.Overflow || over && !q.Overflow {
			fail("task %d: over quota %v, overflow %v, allowed %v", p.ID, over, pl.Overflow, q.Overflow)
		}
		// Only short tasks (which give cards back within the short lane's limit) may eat into
		// another project's unmet guarantee.
		if p.Queue != models.QueueShort && free[pl.Spec]-p.GPUs < owedBy(p.Project, pl.Spec) {
			fail("long task %d takes %d of %d free %s cards that other projects' guarantees need (%d)",
				p.ID, p.GPUs, free[pl.Spec], pl.Spec, owedBy(p.Project, pl.Spec))
		}
		if owed := bookedOwed(snap, now, p, pl.Spec, heldBySpec); free[pl.Spec]-p.GPUs < owed {
			fail("task %d of %s takes %d of %d free %s cards that bookings hold (%d)", p.ID, p.Project, p.GPUs, free[pl.Spec], pl.Spec, owed)
		}
		free[pl.Spec] -= p.GPUs
		addHeld(p.Project, pl.Spec, p.GPUs)
	}

	// Waiting: queue order, positions per lane, reasons that hold.
	lanePos := map[string]int{}
	for i, w := range plan.Waiting {
		if i > 0 && pos[plan.Waiting[i-1].TaskID] > pos[w.TaskID] {
			fail("waiting list not in queue order at task %d", w.TaskID)
		}
		lanePos[w.Lane]++
		if w.Position != lanePos[w.Lane] {
			fail("task %d at position %d of lane %s, want %d", w.TaskID, w.Position, w.Lane, lanePos[w.Lane])
		}
		p := byID[w.TaskID]
		if w.Reason == ReasonNoFreeGPUs || w.Reason == ReasonBehind {
			if !p.DataReady || p.Deferrable && !inWindow {
				fail("task %d waits for cards but is gated", p.ID)
			}
		}
		if w.Reason == ReasonReservationWindow && !waitsForOwnBooking(snap, now, p) {
			fail("task %d waits for a window, but %s has no booking it could use that opens later", p.ID, p.Project)
		}
		if w.Reason == ReasonDataNotReady && p.DataReady {
			fail("task %d waits for data that is ready", p.ID)
		}
		// A guarantee holds back only cards of its own spec: a task waiting for one must be
		// able to use a spec on which another project's guarantee was unmet.
		if w.Reason == ReasonQuota && w.Detail == DetailGuaranteedShare {
			found := false
			for spec, projects := range unmetAtStart {
				for name := range projects {
					found = found || name != p.Project && canUse(p, spec)
				}
			}
			if !found {
				fail("task %d waits for a guaranteed share, but no spec it can use has another project's unmet guarantee", p.ID)
			}
		}
		if w.ETAP50.IsZero() != w.ETAP90.IsZero() && w.ETAP50.IsZero() {
			fail("task %d has a p90 but no p50", p.ID)
		}
		if !w.ETAP50.IsZero() && (w.ETAP50.Before(now) || !w.ETAP90.IsZero() && w.ETAP90.Before(w.ETAP50)) {
			fail("task %d: ETAs %v / %v out of order (now %v)", p.ID, w.ETAP50, w.ETAP90, now)
		}
	}

	// No false "no free GPUs": a ready task that waits for cards finds none it may use once
	// the plan is applied — on no node of a spec it can use, where no head holds a reservation,
	// no other project's unmet guarantee keeps it off and its quota lets it run, are enough
	// cards free (on one node for a task that fits one; whole free nodes else).
	{
		reserved := map[string]bool{}
		for _, r := range plan.Reservations {
			reserved[r.Spec] = true
		}
		taken := map[int64]bool{}
		for g := range held {
			taken[g] = true
		}
		for _, pl := range plan.Placements {
			for _, g := range pl.GPUIDs {
				taken[g] = true
			}
		}
		for _, w := range plan.Waiting {
			p := byID[w.TaskID]
			if w.Reason != ReasonNoFreeGPUs || !p.DataReady || p.Deferrable && !inWindow {
				continue
			}
			for spec := range total {
				if reserved[spec] || !canUse(p, spec) || guarded(p, spec) || overAtEnd(p, spec) || bookedFrom(snap, now, p, spec) {
					continue
				}
				wholeFree := 0
				for i := range snap.Nodes {
					n := &snap.Nodes[i]
					if n.Spec != spec || !n.Schedulable || n.ShortOnly && p.Queue != models.QueueShort {
						continue
					}
					free := 0
					for _, g := range n.GPUs {
						if !taken[g.ID] {
							free++
						}
					}
					if p.GPUs <= len(n.GPUs) && free >= p.GPUs {
						fail("task %d waits for free GPUs, but node %d (%s) has %d free of the %d it asks", p.ID, n.ID, spec, free, p.GPUs)
					}
					if free == len(n.GPUs) {
						wholeFree += free
					}
				}
				if p.GPUs > maxSize[spec] && wholeFree >= p.GPUs {
					fail("task %d waits for free GPUs, but %d cards of wholly free %s nodes are free for its %d", p.ID, wholeFree, spec, p.GPUs)
				}
			}
		}
	}

	// Reservations: one per spec, held by a waiting head, never delayed by a later task.
	resSpec := map[string]bool{}
	for _, r := range plan.Reservations {
		if resSpec[r.Spec] {
			fail("two reservations on spec %s", r.Spec)
		}
		resSpec[r.Spec] = true
		w, ok := waiting[r.TaskID]
		if !ok || !w.Head || w.Reason != ReasonNoFreeGPUs {
			fail("reservation for task %d, which waits as %+v", r.TaskID, w)
		}
		if !r.At.IsZero() && !w.ETAP50.IsZero() && w.ETAP50.Before(r.At) {
			fail("head %d: ETA %v before its reservation %v", r.TaskID, w.ETAP50, r.At)
		}
		if w.PlaceSpec != r.Spec || w.PlaceRegion != r.Region {
			fail("head %d expected on %s@%s, its reservation is on %s@%s", r.TaskID, w.PlaceSpec, w.PlaceRegion, r.Spec, r.Region)
		}
		errs = append(errs, checkReservation(snap, now, pol, plan, r, byID, pos, gpuNode, nodeByID, maxSize)...)
	}
	// Where a waiting task is expected to start: a spec it accepts, with a why.
	for _, w := range plan.Waiting {
		p := byID[w.TaskID]
		if w.PlaceSpec != "" && !accepts(p, w.PlaceSpec) || (w.PlaceSpec == "") != (w.PlaceWhy == "") {
			fail("task %d asks %s %v, expected on %q because %q", p.ID, p.Spec, p.Specs, w.PlaceSpec, w.PlaceWhy)
		}
		if w.PlaceSpec != "" && !w.Head && w.ETAP50.IsZero() {
			fail("task %d expected on %s with no ETA", p.ID, w.PlaceSpec)
		}
	}

	// Fairness in time: among tasks of one lane, priority, project and spec, a later one starts
	// before an earlier, ready one only as a backfill behind a head at or before the earlier.
	for _, pl := range plan.Placements {
		l := byID[pl.TaskID]
		for _, w := range plan.Waiting {
			e := byID[w.TaskID]
			if pos[e.ID] > pos[l.ID] || e.Project != l.Project || e.Priority != l.Priority ||
				askKey(e) != askKey(l) || e.Queue != l.Queue || e.MaxRuntime != l.MaxRuntime && e.Queue == models.QueueShort {
				continue
			}
			if w.Reason != ReasonNoFreeGPUs && w.Reason != ReasonBehind || w.Detail == DetailBooked {
				continue // gated: not ready, off-peak, quota, no such capacity, booked cards
			}
			covered := false
			for _, r := range plan.Reservations {
				if pos[r.TaskID] <= pos[e.ID] && accepts(e, r.Spec) {
					covered = true
				}
			}
			if !covered {
				fail("task %d started ahead of earlier task %d with no head at or before it", l.ID, e.ID)
			}
			if oneSpec(e) && !pl.Backfill {
				fail("task %d started ahead of earlier task %d but is not marked backfill", l.ID, e.ID)
			}
			if !pol.Backfill && pl.Spec == e.Spec {
				fail("task %d backfilled ahead of task %d with backfill off", l.ID, e.ID)
			}
		}
	}
	return errs
}

// checkReservation recomputes, for each reserved node, the cards free at the reservation
// from the running tasks and the placements ahead of the head, and checks that the head's
// need plus the cards of later placements that outlast the reservation fit in them.
func checkReservation(snap Snapshot, now time.Time, pol Policy, plan Plan, r Reservation,
	byID map[int64]Pending, pos map[int64]int, gpuNode map[int64]*Node, nodeByID map[int64]*Node,
	maxSize map[string]int) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	at := int64(math.MaxInt64)
	if !r.At.IsZero() {
		at = r.At.UnixNano()
		if r.At.Before(now) {
			fail("reservation of %d at %v, before now", r.TaskID, r.At)
		}
	}
	head := byID[r.TaskID]
	whole := head.GPUs > maxSize[r.Spec]
	// freeAt counts the cards of node n free at t given the running tasks and the placements
	// ahead of the head.
	freeAt := func(n *Node, t int64) int {
		free := 0
		held := map[int64]bool{}
		for _, run := range snap.Running {
			exp, latest := testEnds(run.StartedAt, run.EstRuntime, run.MaxRuntime)
			if exp < now.UnixNano() {
				exp = latest
			}
			exp = max(exp, now.UnixNano())
			for _, g := range run.GPUIDs {
				if gpuNode[g] == n && !held[g] {
					held[g] = true
					if exp <= t {
						free++
					}
				}
			}
		}
		for _, g := range n.GPUs {
			if g.Outside && !held[g.ID] {
				held[g.ID] = true // never free
			}
		}
		free += len(n.GPUs) - len(held)
		for _, pl := range plan.Placements {
			if pos[pl.TaskID] > pos[r.TaskID] {
				continue
			}
			p := byID[pl.TaskID]
			exp, _ := testEnds(now, p.EstRuntime, p.MaxRuntime)
			for _, g := range pl.GPUIDs {
				if gpuNode[g] == n && exp > t {
					free--
				}
			}
		}
		return free
	}
	for _, rn := range r.Nodes {
		n := nodeByID[rn.NodeID]
		if n.ShortOnly && head.Queue != models.QueueShort {
			fail("reservation of long task %d on short-only node %d", r.TaskID, n.ID)
		}
		need := rn.GPUs
		if whole {
			need = len(n.GPUs)
		}
		free := freeAt(n, at)
		if free < need {
			fail("reservation of %d on node %d at %v: %d cards free, needs %d", r.TaskID, n.ID, r.At, free, need)
		}
		if !whole && free-need != rn.Spare {
			fail("reservation of %d on node %d: spare %d, want %d", r.TaskID, n.ID, rn.Spare, free-need)
		}
		later := 0
		for _, pl := range plan.Placements {
			if pos[pl.TaskID] < pos[r.TaskID] {
				continue
			}
			p := byID[pl.TaskID]
			_, latest := testEnds(now, p.EstRuntime, p.MaxRuntime)
			on := 0
			for _, g := range pl.GPUIDs {
				if gpuNode[g] == n {
					on++
				}
			}
			if on > 0 && !pol.Backfill {
				fail("task %d placed on node %d behind head %d with backfill off", p.ID, n.ID, r.TaskID)
			}
			if latest > at {
				later += on
			}
		}
		if need+later > free {
			fail("head %d delayed: node %d has %d cards at %v, head needs %d, later tasks keep %d",
				r.TaskID, n.ID, free, r.At, need, later)
		}
	}
	// No node of the spec gives a single-node head its cards earlier.
	if !whole && !r.At.IsZero() {
		for i := range snap.Nodes {
			n := &snap.Nodes[i]
			if !n.Schedulable || n.Spec != r.Spec || len(n.GPUs) < head.GPUs || n.ShortOnly && head.Queue != models.QueueShort {
				continue
			}
			if freeAt(n, at-1) >= head.GPUs {
				fail("head %d: node %d has its cards before the reservation %v", r.TaskID, n.ID, r.At)
			}
		}
	}
	return errs
}

// TestDecideIgnoresInputOrder checks that Decide leaves its snapshot alone and that the order
// of nodes, cards, running and pending tasks in it changes nothing in the plan.
func TestDecideIgnoresInputOrder(t *testing.T) {
	for seed := range 100 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		c := genConfig{nodes: 1 + r.IntN(16), specs: genSpecs, pending: r.IntN(80), busy: r.Float64(),
			bigTasks: true, quotas: true}
		now := t0.Add(time.Duration(r.IntN(24*60)) * time.Minute)
		snap := genSnapshot(r, c, now)
		pol := DefaultPolicy(shanghai)
		before := cloneSnapshot(snap)
		want := Decide(snap, now, pol)
		if diff := cmp.Diff(before, snap); diff != "" {
			t.Fatalf("seed %d: Decide changed its snapshot (-before +after):\n%s", seed, diff)
		}
		shuffled := cloneSnapshot(snap)
		r.Shuffle(len(shuffled.Nodes), func(i, j int) { shuffled.Nodes[i], shuffled.Nodes[j] = shuffled.Nodes[j], shuffled.Nodes[i] })
		for _, n := range shuffled.Nodes {
			r.Shuffle(len(n.GPUs), func(i, j int) { n.GPUs[i], n.GPUs[j] = n.GPUs[j], n.GPUs[i] })
		}
		r.Shuffle(len(shuffled.Running), func(i, j int) {
			shuffled.Running[i], shuffled.Running[j] = shuffled.Running[j], shuffled.Running[i]
		})
		r.Shuffle(len(shuffled.Pending), func(i, j int) {
			shuffled.Pending[i], shuffled.Pending[j] = shuffled.Pending[j], shuffled.Pending[i]
		})
		if got := Decide(shuffled, now, pol); !cmp.Equal(want, got) {
			t.Fatalf("seed %d: Decide(shuffled snapshot) differs (-want +got):\n%s", seed, cmp.Diff(want, got))
		}
	}
}

func cloneSnapshot(s Snapshot) Snapshot {
	out := Snapshot{
		Nodes:    slices.Clone(s.Nodes),
		Running:  slices.Clone(s.Running),
		Pending:  slices.Clone(s.Pending),
		Projects: maps.Clone(s.Projects),
		Quotas:   maps.Clone(s.Quotas),
		Bookings: slices.Clone(s.Bookings),
	}
	for i := range out.Nodes {
		out.Nodes[i].GPUs = slices.Clone(out.Nodes[i].GPUs)
	}
	for i := range out.Running {
		out.Running[i].GPUIDs = slices.Clone(out.Running[i].GPUIDs)
	}
	return out
}

// accepts reports whether task p may run on spec.
func accepts(p Pending, spec string) bool {
	switch {
	case len(p.Specs) > 0:
		return slices.Contains(p.Specs, spec)
	case p.Spec != "":
		return p.Spec == spec
	}
	return true
}

// oneSpec reports whether task p accepts exactly one spec.
func oneSpec(p Pending) bool {
	return len(p.Specs) == 1 || len(p.Specs) == 0 && p.Spec != ""
}

// askKey is what task p asks for, to compare tasks asking the same.
func askKey(p Pending) string { return p.Spec + "|" + strings.Join(p.Specs, ",") }
