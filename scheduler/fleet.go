package scheduler

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"time"
)

// never is the offset of an end that will not come (no estimate and no max runtime).
const never = math.MaxInt64

// after adds d to the offset t, saturating at never; a non-positive d means "no bound".
func after(t int64, d time.Duration) int64 {
	if t == never || d <= 0 || (t > 0 && int64(d) > never-t) {
		return never
	}
	return t + int64(d)
}

// durations are a task's expected (estimate, capped by the max runtime, else the max
// runtime) and latest (max runtime) runtimes; zero means no bound.
func durations(est, maxRun time.Duration) (d50, d90 time.Duration) {
	if est <= 0 || (maxRun > 0 && est > maxRun) {
		est = maxRun
	}
	return est, maxRun
}

// fnode is a schedulable node in the index.
type fnode struct {
	id    int64
	spec  int32 // index into fleet.specs
	local int32 // position among its spec's nodes, by node id
	first int32 // offset of its cards in fleet.gpuID / fleet.held
	size  int32
	free  int32
	// outside counts its cards used outside Kashi (GPU.Outside): held, and never coming back
	// for a reservation.
	outside int32
	res     int32 // reservation holding this node, or -1
	spare   int32 // cards a task outlasting the reservation may still take
	// shortOnly: the node takes short tasks only.
	shortOnly bool
}

// fspec is the schedulable part of one place: a spec in a region (the region of its nodes'
// pool, "" for none). Decide keeps one pool of cards per place: a task asking for a spec
// asks for every place of that spec its regions allow. Its free-count buckets: bucket[f]
// is a bitset (by local node index) of the nodes with exactly f free cards, so best fit is
// the lowest set bit of the first non-empty bucket at or above the asked count.
type fspec struct {
	name      string
	region    string
	nameIdx   int32 // index of name in fleet.names
	first, n  int32 // node range in fleet.nodes
	maxSize   int32
	total     int32 // cards of all schedulable nodes
	longTotal int32 // cards of the schedulable nodes long tasks may use (not short-only)
	freeGPUs  int32
	words     int
	bucket    [][]uint64 // [free count][word]
	count     []int32    // nodes per free count
	whole     []uint64   // nodes with every card free
	wholeGPUs int32      // cards of those nodes
	res       int32      // reservation of this spec, or -1
	// attrs is what the place's pools state; nodeSize its largest node, schedulable or not:
	// a task asking more runs across nodes there.
	attrs    attrs
	nodeSize int32
}

// attrs are what a pool states for work across nodes and for storage, as Decide reads them
// (Node.InterNodeGbps, NoInterNode, StorageMBps). Nodes of one spec and region whose pools
// state different attrs are different places.
type attrs struct {
	interGbps, storage int32
	noInter            bool
}

// attrsOf clamps a node's attributes.
func attrsOf(n *Node) attrs {
	return attrs{interGbps: int32(min(max(n.InterNodeGbps, 0), math.MaxInt32)),
		storage: int32(min(max(n.StorageMBps, 0), math.MaxInt32)), noInter: n.NoInterNode}
}

// pkey is a place with its attrs: a key of newFleet's index.
type pkey struct {
	place
	a attrs
}

func keyOf(n *Node) pkey { return pkey{place{n.Spec, n.Region}, attrsOf(n)} }

// event is a task holding n cards of a node until end50 (expected) or end90 (latest), as
// offsets from now; eta50 is the expected end the ETAs read (see etaEnd).
type event struct {
	node                int32
	n                   int32
	run                 int32 // the task's index in the snapshot's Running; -1 for one placed now
	end50, end90, eta50 int64
}

// fleet is the mutable view of the schedulable cards during one Decide.
type fleet struct {
	// specs are the places, by spec name then region.
	specs []fspec
	// byName lists the places of every spec name of the snapshot, schedulable or not;
	// names are the spec names in order (fspec.nameIdx).
	byName map[string][]int32
	names  []string
	nodes  []fnode
	gpuID  []int64
	held   []bool
	events []event
	// specOfGPU maps every card of the snapshot to its place, for quota accounting.
	specOfGPU map[int64]int32
	nodeOfGPU map[int64]int32 // schedulable cards only: node index
	maxSize   int32
	shortOnly int // schedulable short-only nodes
	// noInterSize is the smallest nodeSize of the places stating no network between nodes
	// (MaxInt32 for none): a task asking no more is kept off no place for being larger than
	// a node.
	noInterSize int32
}

// place is a spec in a region.
type place struct{ spec, region string }

// placeOf is the index of the place of spec in region, if a node has it.
func (f *fleet) placeOf(spec, region string) (int32, bool) {
	for _, s := range f.byName[spec] {
		if f.specs[s].region == region {
			return s, true
		}
	}
	return 0, false
}

func newFleet(snap *Snapshot) *fleet {
	f := &fleet{byName: make(map[string][]int32), noInterSize: math.MaxInt32}
	placeIdx := make(map[pkey]int32)
	var places []pkey
	totalGPUs, schedGPUs := 0, 0
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		if _, ok := placeIdx[keyOf(n)]; !ok {
			placeIdx[keyOf(n)] = 0
			places = append(places, keyOf(n))
		}
		totalGPUs += len(n.GPUs)
		if n.Schedulable {
			schedGPUs += len(n.GPUs)
		}
	}
	slices.SortFunc(places, func(a, b pkey) int {
		return cmp.Or(cmp.Compare(a.spec, b.spec), cmp.Compare(a.region, b.region), cmp.Compare(a.a.interGbps, b.a.interGbps),
			cmp.Compare(a.a.storage, b.a.storage), cmpBool(a.a.noInter, b.a.noInter))
	})
	f.specs = make([]fspec, len(places))
	for i, pl := range places {
		placeIdx[pl] = int32(i)
		if _, ok := f.byName[pl.spec]; !ok {
			f.names = append(f.names, pl.spec)
		}
		f.byName[pl.spec] = append(f.byName[pl.spec], int32(i))
		f.specs[i] = fspec{name: pl.spec, region: pl.region, nameIdx: int32(len(f.names) - 1), res: -1, attrs: pl.a}
	}
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		sp := &f.specs[placeIdx[keyOf(n)]]
		sp.nodeSize = max(sp.nodeSize, int32(min(len(n.GPUs), math.MaxInt32)))
	}
	for s := range f.specs {
		if sp := &f.specs[s]; sp.attrs.noInter {
			f.noInterSize = min(f.noInterSize, sp.nodeSize)
		}
	}

	// Schedulable nodes grouped by spec, then by id.
	order := make([]int32, 0, len(snap.Nodes))
	for i := range snap.Nodes {
		if snap.Nodes[i].Schedulable {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		na, nb := &snap.Nodes[a], &snap.Nodes[b]
		if c := cmp.Compare(placeIdx[keyOf(na)], placeIdx[keyOf(nb)]); c != 0 {
			return c
		}
		return cmp.Compare(na.ID, nb.ID)
	})
	f.nodes = make([]fnode, len(order))
	f.gpuID = make([]int64, 0, schedGPUs)
	f.held = make([]bool, schedGPUs)
	f.specOfGPU = make(map[int64]int32, totalGPUs)
	f.nodeOfGPU = make(map[int64]int32, schedGPUs)
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		s := placeIdx[keyOf(n)]
		for _, g := range n.GPUs {
			f.specOfGPU[g.ID] = s
		}
	}
	var gpus []GPU
	for i, oi := range order {
		n := &snap.Nodes[oi]
		s := placeIdx[keyOf(n)]
		sp := &f.specs[s]
		if sp.n == 0 {
			sp.first = int32(i)
		}
		gpus = append(gpus[:0], n.GPUs...)
		slices.SortFunc(gpus, func(a, b GPU) int { return cmp.Compare(a.Index, b.Index) })
		f.nodes[i] = fnode{id: n.ID, spec: s, local: sp.n, first: int32(len(f.gpuID)),
			size: int32(len(gpus)), res: -1, shortOnly: n.ShortOnly}
		for _, g := range gpus {
			f.nodeOfGPU[g.ID] = int32(i)
			if g.Outside {
				f.held[len(f.gpuID)] = true
				f.nodes[i].outside++
			}
			f.gpuID = append(f.gpuID, g.ID)
		}
		sp.n++
		sp.total += int32(len(gpus))
		if n.ShortOnly {
			f.shortOnly++
		} else {
			sp.longTotal += int32(len(gpus))
		}
		sp.maxSize = max(sp.maxSize, int32(len(gpus)))
		f.maxSize = max(f.maxSize, int32(len(gpus)))
	}
	for s := range f.specs {
		sp := &f.specs[s]
		sp.words = (int(sp.n) + 63) / 64
		sp.bucket = make([][]uint64, sp.maxSize+1)
		for b := range sp.bucket {
			sp.bucket[b] = make([]uint64, sp.words)
		}
		sp.count = make([]int32, sp.maxSize+1)
		sp.whole = make([]uint64, sp.words)
	}
	return f
}

// hold marks the cards of the running tasks as taken and records when they come back, eta
// giving each one's expected end for the ETAs.
func (f *fleet) hold(running []Running, now time.Time, eta func(*Running) int64) {
	for i := range running {
		r := &running[i]
		end50, end90 := runningEnds(r, now)
		eta50 := int64(-1) // read when a card of the task is schedulable
		last := int32(-1)
		for _, g := range r.GPUIDs {
			ni, ok := f.nodeOfGPU[g]
			if !ok {
				continue
			}
			slot := f.slotOf(ni, g)
			if slot < 0 || f.held[slot] {
				continue
			}
			f.held[slot] = true
			if ni == last {
				f.events[len(f.events)-1].n++
				continue
			}
			if eta50 < 0 {
				eta50 = eta(r)
			}
			f.events = append(f.events, event{node: ni, n: 1, run: int32(i), end50: end50, end90: end90, eta50: eta50})
			last = ni
		}
	}
	for i := range f.nodes {
		n := &f.nodes[i]
		free := int32(0)
		for k := n.first; k < n.first+n.size; k++ {
			if !f.held[k] {
				free++
			}
		}
		n.free = free
		f.setBits(int32(i), 0, free)
	}
}

func (f *fleet) slotOf(ni int32, gpu int64) int32 {
	n := &f.nodes[ni]
	for k := n.first; k < n.first+n.size; k++ {
		if f.gpuID[k] == gpu {
			return k
		}
	}
	return -1
}

// runningEnds gives a running task's expected and latest ends as offsets from now. The
// expected end is start + estimate, or start + max runtime
// without an estimate; once a task outlives its estimate, its latest end is the best guess.
// An end already past counts as now.
func runningEnds(r *Running, now time.Time) (end50, end90 int64) {
	start := int64(r.StartedAt.Sub(now))
	d50, d90 := durations(r.EstRuntime, r.MaxRuntime)
	end50, end90 = after(start, d50), after(start, d90)
	if end50 < 0 {
		end50 = end90
	}
	return max(end50, 0), max(end90, 0)
}

// setBits moves node i from the bucket of free count old to that of free count now.
func (f *fleet) setBits(i, old, now int32) {
	n := &f.nodes[i]
	sp := &f.specs[n.spec]
	w, bit := n.local/64, uint64(1)<<(n.local%64)
	if old > 0 {
		sp.bucket[old][w] &^= bit
		sp.count[old]--
	}
	if now > 0 {
		sp.bucket[now][w] |= bit
		sp.count[now]++
	}
	if old == n.size && n.size > 0 {
		sp.whole[w] &^= bit
		sp.wholeGPUs -= n.size
	}
	if now == n.size && n.size > 0 {
		sp.whole[w] |= bit
		sp.wholeGPUs += n.size
	}
	sp.freeGPUs += now - old
}

// maxFree is the largest free count of any node of spec s.
func (f *fleet) maxFree(s int32) int32 {
	sp := &f.specs[s]
	for b := sp.maxSize; b > 0; b-- {
		if sp.count[b] > 0 {
			return b
		}
	}
	return 0
}

// fitsNow reports whether g cards of spec s are free in the shape the task needs, ignoring
// reservations.
func (f *fleet) fitsNow(s int32, g int32) bool {
	sp := &f.specs[s]
	if g <= sp.maxSize {
		return f.maxFree(s) >= g
	}
	return sp.wholeGPUs >= g
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func trailingZeros(w uint64) int { return bits.TrailingZeros64(w) }

// sortBy sorts xs by key, then by value, in place.
func sortBy(xs []int32, key func(int32) int64) {
	slices.SortFunc(xs, func(a, b int32) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

// sortStableBy sorts xs by key, keeping the order of equal keys.
func sortStableBy(xs []int32, key func(int32) int64) {
	slices.SortStableFunc(xs, func(a, b int32) int { return cmp.Compare(key(a), key(b)) })
}
