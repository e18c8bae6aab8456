package replay

import (
	"strconv"
	"time"

	"kashi/scaler"
	"kashi/scheduler"
)

// Node states in the replay.
const (
	nodeReady uint8 = iota
	nodeDraining
	nodeRemoved
)

// gpuBits is how many low bits of a card's id hold its index on the node.
const gpuBits = 10

// gpuID numbers card idx of node id.
func gpuID(node int64, idx int) int64 { return node<<gpuBits | int64(idx) }

// node is one machine of the replay's fleet.
type node struct {
	id        int64
	machineID string // the provider's id the scaling loop sees
	pool      int
	state     uint8
	held      []bool // per card index
	free      int
	tasks     int // jobs holding cards here
	gpus      []scheduler.GPU
	// since is when its machine was asked for; until is its removal.
	since, until int64
	// unneededSince and drainSince are the scaling loop's persisted marks.
	unneededSince, drainSince time.Time
}

// machine is a machine asked for whose agent has not registered.
type machine struct {
	key     string
	pool    int
	created int64
	readyAt int64
	deleted bool
}

// poolState is a pool during the replay.
type poolState struct {
	Pool
	policy scaler.Policy
	// versions is how many of the pool's Versions are in force.
	versions int
	booting  []*machine
	memory   []scaler.MemoryPoint
	lastUp   time.Time
	lastDown time.Time
	// boot is the pool's run of machines that failed to boot, as the last decision left it.
	boot      scaler.BootRun
	machines  int   // machines asked so far, for keys
	machineS  int64 // machine-seconds of machines already gone
	elastic   bool
	maxGPUs   int64 // cards the pool can ever have
	readyGPUs int   // cards of its ready nodes
	heldGPUs  int   // cards held on its ready nodes
}

// addNode brings a machine of pool p into the fleet, ready, asked for at since.
func (s *sim) addNode(p int, since int64) {
	size := s.pools[p].GPUsPerNode
	id := int64(len(s.nodes) + 1)
	n := &node{id: id, machineID: "m" + strconv.FormatInt(id, 10), pool: p, held: make([]bool, size), free: size, since: since,
		gpus: make([]scheduler.GPU, size)}
	for i := range size {
		n.gpus[i] = scheduler.GPU{ID: gpuID(n.id, i), Index: i}
	}
	s.nodes = append(s.nodes, n)
	s.pools[p].readyGPUs += size
	s.fleetChanged, s.dirty = true, true
}

// setState moves a node between ready, draining and removed, keeping the pool's counts.
func (s *sim) setState(n *node, st uint8) {
	ps := &s.pools[n.pool]
	if n.state == nodeReady {
		ps.readyGPUs -= len(n.held)
		ps.heldGPUs -= len(n.held) - n.free
	}
	n.state = st
	switch st {
	case nodeReady:
		ps.readyGPUs += len(n.held)
		ps.heldGPUs += len(n.held) - n.free
		s.dirty = true
	case nodeRemoved:
		n.until = s.now
	}
	s.fleetChanged = true
}

// nodeOf is the node of a card id.
func (s *sim) nodeOf(g int64) (*node, int) {
	return s.nodes[g>>gpuBits-1], int(g & (1<<gpuBits - 1))
}

// snapNodes are the nodes as Decide sees them: ready nodes schedulable, draining ones not.
func (s *sim) snapNodes() []scheduler.Node {
	if !s.fleetChanged {
		return s.snapNodeBuf
	}
	s.snapNodeBuf = s.snapNodeBuf[:0]
	for _, n := range s.nodes {
		if n.state == nodeRemoved {
			continue
		}
		p := &s.pools[n.pool]
		s.snapNodeBuf = append(s.snapNodeBuf, scheduler.Node{ID: n.id, Pool: p.Name, Spec: p.Spec, GPUs: n.gpus,
			Schedulable: n.state == nodeReady})
	}
	s.fleetChanged = false
	return s.snapNodeBuf
}
