package replay

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"kashi/scaler"
	"kashi/scheduler"
)

// Policies.
const (
	// PolicyKashi is the production policy: scheduler.Decide (lanes, priorities, best fit,
	// EASY backfill, quotas) after every change.
	PolicyKashi = "kashi"
	// PolicyFIFO is strict first-in first-out: jobs in order of (submit, row); a job never
	// starts before the job ahead of it; it starts at the earliest moment at or after its
	// submit when it fits. A job of g ≤ G cards takes g free cards on one node (the first
	// node by id with room, its lowest free cards); a larger job takes ⌈g/G⌉ wholly free
	// nodes (the first ones by id) and holds them whole. A job holds its cards over
	// [start, start + duration), so a job ending at t frees them for one starting at t.
	PolicyFIFO = "fifo"
)

// Estimates: what the replayed tasks declare about their runtime.
const (
	// EstimatesExact: each task declares its true runtime as its estimate and max runtime,
	// and one within the short lane's limit queues in the short lane — users who know
	// their jobs; backfill then works at its best.
	EstimatesExact = "exact"
	// EstimatesNone: tasks declare nothing and all queue in the long lane; backfill may
	// then use only cards no reservation holds.
	EstimatesNone = "none"
	// EstimatesDeclared: each task declares what its trace row says (est_s, max_runtime_s,
	// queue), as people did: estimates off by their own error, max runtimes with a margin.
	EstimatesDeclared = "declared"
)

// Causes of a job Run leaves out (see also the Skip* causes of Read).
const (
	SkipLargerThanFleet = "larger_than_fleet" // more cards than its spec's pools can ever have
	SkipUnknownSpec     = "unknown_spec"      // a spec no pool has
	SkipOverQuota       = "over_quota"        // more cards than its group's quota allows (kashi policy)
)

// Options are a replay's settings.
type Options struct {
	// Policy is PolicyKashi (the default when empty) or PolicyFIFO.
	Policy string
	// Estimates is EstimatesExact (the default when empty) or EstimatesNone.
	Estimates string
	Fleet     Config
}

// stuckAfter: a replay whose jobs wait with nothing running, and where no job started or
// ended and no machine became ready for this long of virtual time, ends with an error.
const stuckAfter = 31 * 24 * time.Hour

// jobRun is what happened to one job.
type jobRun struct {
	start, end int64
	started    bool
	nodes      []int64
	gpus       []int64 // cards held, while it runs
	cards      []int64 // cards it held, kept after it ends
	runIdx     int32   // position in sim.running
	// waited is true once a decision left the job waiting; shown is the first estimate of
	// start the queue showed for it (ETAShown.P50 zero while none was known).
	waited bool
	shown  ETAShown
}

type sim struct {
	opt         Options
	jobs        []Job
	runs        []jobRun
	pools       []poolState
	nodes       []*node // by id − 1
	pol         scheduler.Policy
	interval    int64
	kashi       bool
	elastic     bool
	now         int64
	next        int // next job to submit
	pending     []int32
	running     []scheduler.Running
	finish      endHeap
	boots       endHeap // machines by ready time
	machines    []*machine
	waiting     []scheduler.Waiting // the last plan's (kashi)
	inUse       int
	peak        int
	dirty       bool
	progress    int64
	events      []ScaleEvent
	waits       []int64
	snapNodeBuf []scheduler.Node
	pendBuf     []scheduler.Pending
	quotas      map[string]scheduler.QuotaState
	// runtimes are the ended jobs' runtimes against what they declared, and history how the
	// queue's estimates fared (kashi policy).
	runtimes     scheduler.Runtimes
	history      *scheduler.ETAHistory
	fleetChanged bool
	// refs and refIdx are the elastic pools for the demand rule, made once.
	refs   []scaler.PoolRef
	refIdx []int
	// deps are the trace's pipelines; nil without any.
	deps *deps
}

// Run replays the trace on opt.Fleet under opt.Policy. Jobs that could never start (a
// spec no pool has, more cards than the pools can ever have) are left out and counted.
func Run(tr *Trace, opt Options) (*Result, error) {
	if opt.Policy == "" {
		opt.Policy = PolicyKashi
	}
	if opt.Estimates == "" {
		opt.Estimates = EstimatesExact
	}
	switch {
	case opt.Policy != PolicyKashi && opt.Policy != PolicyFIFO:
		return nil, fmt.Errorf("replay: unknown policy %q (kashi or fifo)", opt.Policy)
	case opt.Estimates != EstimatesExact && opt.Estimates != EstimatesNone && opt.Estimates != EstimatesDeclared:
		return nil, fmt.Errorf("replay: unknown estimates %q (exact, none or declared)", opt.Estimates)
	}
	if err := opt.Fleet.Validate(); err != nil {
		return nil, err
	}
	s := &sim{opt: opt, kashi: opt.Policy == PolicyKashi, elastic: opt.Fleet.elastic(),
		pol: scheduler.DefaultPolicy(time.UTC), quotas: opt.Fleet.quotaStates(), runtimes: scheduler.Runtimes{},
		history: scheduler.NewETAHistory()}
	s.interval = int64(opt.Fleet.ScaleInterval / time.Second)
	if s.interval <= 0 {
		s.interval = int64(DefaultScaleInterval / time.Second)
	}
	res := &Result{Policy: opt.Policy, Skipped: map[string]int{}, GPUHoursByGroup: map[string]Hours{},
		ScaleEvents: []ScaleEvent{}}
	for k, v := range tr.Skipped {
		res.Skipped[k] = v
	}
	s.initPools()
	s.jobs, s.deps = linkPipelines(s.usable(tr.Jobs, res.Skipped), res.Skipped)
	s.runs = make([]jobRun, len(s.jobs))
	if len(s.jobs) == 0 {
		return nil, errors.New("replay: no job of the trace can run on this fleet")
	}
	t0 := s.jobs[0].Submit
	s.now, s.progress = t0, t0
	for p := range s.pools {
		for range s.pools[p].Nodes {
			s.addNode(p, t0)
		}
		if s.pools[p].elastic {
			for range s.pools[p].policy.MinNodes {
				s.addNode(p, t0)
			}
		}
	}
	if err := s.loop(t0); err != nil {
		return nil, err
	}
	s.summarise(res, t0)
	return res, nil
}

// initPools copies the configured pools, with their policies and limits.
func (s *sim) initPools() {
	s.pools = make([]poolState, len(s.opt.Fleet.Pools))
	for i, p := range s.opt.Fleet.Pools {
		ps := poolState{Pool: p, maxGPUs: int64(p.Nodes) * int64(p.GPUsPerNode)}
		if ps.BootTime == 0 {
			ps.BootTime = DefaultBootTime
		}
		if p.Scale != nil {
			ps.elastic, ps.policy = true, p.Scale.Policy()
			most := ps.policy.MaxNodes
			for _, v := range p.Versions {
				most = max(most, v.Scale.Policy().MaxNodes)
			}
			ps.maxGPUs = int64(most) * int64(p.GPUsPerNode)
		}
		s.pools[i] = ps
	}
}

// usable keeps the jobs that could ever start: a spec some pool has (or none), and no
// more cards than the pools of one spec can ever hold.
func (s *sim) usable(jobs []Job, skipped map[string]int) []Job {
	bySpec := map[string]int64{}
	for _, p := range s.pools {
		bySpec[p.Spec] += p.maxGPUs
	}
	var most int64
	for _, g := range bySpec {
		most = max(most, g)
	}
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		limit, ok := bySpec[j.Spec]
		if j.Spec == "" {
			limit, ok = most, true
		}
		switch {
		case !ok:
			skipped[SkipUnknownSpec]++
		case int64(j.GPUs) > limit:
			skipped[SkipLargerThanFleet]++
		case s.kashi && s.overQuota(j):
			skipped[SkipOverQuota]++
		default:
			out = append(out, j)
		}
	}
	return out
}

// overQuota reports whether job j asks more cards than its group's quota ever allows.
func (s *sim) overQuota(j Job) bool {
	q, ok := s.quotas[j.Group]
	if !ok || q.Overflow {
		return false
	}
	lim, ok := q.MaxGPUsBySpec[j.Spec]
	return q.MaxGPUs > 0 && j.GPUs > q.MaxGPUs || ok && j.GPUs > lim
}

// loop is the discrete-event loop: it jumps to the next submit, finish, machine ready or
// scaling tick, applies everything due then, and decides.
func (s *sim) loop(t0 int64) error {
	tick := t0
	for {
		t := int64(math.MaxInt64)
		if s.next < len(s.jobs) {
			t = s.jobs[s.next].Submit
		}
		if len(s.finish) > 0 {
			t = min(t, s.finish[0].at)
		}
		if len(s.boots) > 0 {
			t = min(t, s.boots[0].at)
		}
		if s.next == len(s.jobs) && len(s.running) == 0 && len(s.pending) == 0 {
			return nil
		}
		if s.elastic {
			t = min(t, tick)
		}
		idle := len(s.pending) > 0 && len(s.running) == 0
		if t == math.MaxInt64 || idle && t-s.progress > int64(stuckAfter/time.Second) {
			return fmt.Errorf("replay: stuck at t=%d: %d jobs wait, nothing runs, and no machine became ready for %s%s",
				s.now, len(s.pending), stuckAfter, s.failing())
		}
		if t > s.now {
			s.peak = max(s.peak, s.inUse)
			s.now = t
		}
		for len(s.finish) > 0 && s.finish[0].at == t {
			s.end(heap.Pop(&s.finish).(endAt).i)
		}
		for len(s.boots) > 0 && s.boots[0].at == t {
			s.ready(s.machines[heap.Pop(&s.boots).(endAt).i])
		}
		for s.next < len(s.jobs) && s.jobs[s.next].Submit == t {
			s.arrive(int32(s.next))
			s.next++
		}
		s.place()
		if s.elastic && t == tick {
			s.scale()
			s.place()
			tick += s.interval
		}
	}
}

// failing names the pools that stopped asking for machines after boot failures, for the
// error of a stuck replay; empty when none did.
func (s *sim) failing() string {
	var out []string
	for _, ps := range s.pools {
		if ps.boot.Failing() {
			out = append(out, fmt.Sprintf("pool %s stopped asking for machines after %d boot failures in a row", ps.Name, ps.boot.Failures))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return ": " + strings.Join(out, "; ")
}

// place runs the policy when something changed and tasks wait.
func (s *sim) place() {
	if !s.dirty || len(s.pending) == 0 {
		return
	}
	s.dirty = false
	if s.kashi {
		s.placeKashi()
	} else {
		s.placeFIFO()
	}
}

// start gives job j the cards gpus at now.
func (s *sim) start(j int32, gpus []int64) {
	r := &s.runs[j]
	job := &s.jobs[j]
	r.started, r.start, r.end = true, s.now, s.now+job.Duration
	r.gpus = append([]int64(nil), gpus...)
	r.cards = r.gpus
	for _, g := range gpus {
		n, idx := s.nodeOf(g)
		n.held[idx] = true
		n.free--
		s.pools[n.pool].heldGPUs++
		if len(r.nodes) == 0 || r.nodes[len(r.nodes)-1] != n.id {
			r.nodes = append(r.nodes, n.id)
			n.tasks++
		}
	}
	s.inUse += len(gpus)
	s.waits = append(s.waits, s.now-job.Submit)
	r.runIdx = int32(len(s.running))
	s.running = append(s.running, s.runningOf(j))
	heap.Push(&s.finish, endAt{r.end, int(j)})
	s.progress = s.now
}

// runningOf is job j as Decide sees it running.
func (s *sim) runningOf(j int32) scheduler.Running {
	est, maxRT := s.declared(j)
	r := &s.runs[j]
	return scheduler.Running{TaskID: int64(j) + 1, Project: s.jobs[j].Group, GPUIDs: r.gpus,
		StartedAt: at(r.start), EstRuntime: est, MaxRuntime: maxRT}
}

// declared is job j's declared estimate and max runtime.
func (s *sim) declared(j int32) (est, maxRT time.Duration) {
	job := &s.jobs[j]
	switch s.opt.Estimates {
	case EstimatesExact:
		d := time.Duration(job.Duration) * time.Second
		return d, d
	case EstimatesDeclared:
		return time.Duration(job.Est) * time.Second, time.Duration(job.MaxRuntime) * time.Second
	}
	return 0, 0
}

// end releases job j's cards.
func (s *sim) end(j int) {
	r := &s.runs[j]
	var last int64
	for _, g := range r.gpus {
		n, idx := s.nodeOf(g)
		n.held[idx] = false
		n.free++
		if n.state == nodeReady {
			s.pools[n.pool].heldGPUs--
		}
		if n.id != last {
			n.tasks--
			last = n.id
		}
	}
	s.inUse -= len(r.gpus)
	r.gpus = nil
	if est, _ := s.declared(int32(j)); s.kashi && est > 0 {
		s.runtimes.Add(scheduler.RuntimeSample{Project: s.jobs[j].Group, Est: est,
			Ran: time.Duration(s.jobs[j].Duration) * time.Second})
	}
	// Swap-remove from running.
	k := r.runIdx
	lastIdx := int32(len(s.running) - 1)
	if k != lastIdx {
		moved := s.running[lastIdx]
		s.running[k] = moved
		s.runs[moved.TaskID-1].runIdx = k
	}
	s.running = s.running[:lastIdx]
	s.dirty = true
	s.progress = s.now
	if s.deps != nil {
		s.parentEnded(int32(j))
	}
}

// at is a time on the trace's clock as a time.Time.
func at(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// endAt is an event at a time; i is a job or machine index. Ties pop in index order.
type endAt struct {
	at int64
	i  int
}

// endHeap is a min-heap of endAt by (at, i).
type endHeap []endAt

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(a, b int) bool {
	return h[a].at < h[b].at || h[a].at == h[b].at && h[a].i < h[b].i
}
func (h endHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }

// Push adds an event (container/heap).
func (h *endHeap) Push(x any) { *h = append(*h, x.(endAt)) }

// Pop removes the last event (container/heap).
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
