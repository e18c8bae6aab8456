package models

import (
	"sync"
	"time"
)

// gpuRowTTL bounds how long the sample commits trust a node's GPU rows without reading them
// again. A registration or removal in this process forgets every node at once; one on another
// replica, or another replica's record of unmanaged use, takes effect here within the TTL (a
// GPU unknown to the rows held is looked up at once).
const gpuRowTTL = 30 * time.Second

// gpuRowCache holds each node's GPU rows as the sample commits last left them: the names,
// sizes and unmanaged use they validate and walk readings against. The latest readings and
// timers in these rows may be older than the live view's, which the commits overlay. Only
// nodes that report are held, one entry per node.
type gpuRowCache struct {
	mu     sync.Mutex
	gen    uint64 // counts clears, so that rows read before one are not kept
	byNode map[int64]cachedGPURows
}

type cachedGPURows struct {
	gpus []GPU
	at   time.Time
}

// get returns copies of the rows of the nodes held within the TTL, the nodes it does not
// hold, and the generation to put rows back with.
func (c *gpuRowCache) get(nodeIDs []int64) (gpus []GPU, missing []int64, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range nodeIDs {
		e, ok := c.byNode[id]
		if !ok || time.Since(e.at) >= gpuRowTTL {
			missing = append(missing, id)
			continue
		}
		gpus = append(gpus, e.gpus...)
	}
	return gpus, missing, c.gen
}

// put keeps the rows of the nodes in fresh (read from the database at generation gen) and
// replaces the rows of the others in gpus, unless the rows were forgotten since.
func (c *gpuRowCache) put(gpus []GPU, fresh map[int64]bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.byNode == nil {
		c.byNode = make(map[int64]cachedGPURows)
	}
	now := time.Now()
	for i := 0; i < len(gpus); {
		j := i
		for j < len(gpus) && gpus[j].NodeID == gpus[i].NodeID {
			j++
		}
		id := gpus[i].NodeID
		at := now
		if e, ok := c.byNode[id]; ok && !fresh[id] {
			at = e.at // rows updated by a commit, not read again: the TTL runs on
		}
		c.byNode[id] = cachedGPURows{gpus: gpus[i:j:j], at: at}
		i = j
	}
}

// clear forgets every node's rows after a node's GPUs changed.
func (c *gpuRowCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.byNode = nil
}
