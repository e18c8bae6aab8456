package models

import (
	"sync"
	"time"
)

// fleetTTL bounds how long this process reads the fleet's nodes and cards from memory
// without reading them again. Any write to them in this process forgets them before it
// returns (countChanges, and the sample commits when a node comes back or a card's unmanaged
// use changes); a write on another replica takes effect here within fleetTTL. The latest
// readings and last-seen times are overlaid from the live view on each read, as before.
const fleetTTL = 5 * time.Second

// fleetTables are the tables the fleet is read from.
var fleetTables = []string{"nodes", "gpus", "pools"}

// fleetCache keeps the nodes not removed with their pools and GPUs as one read found them:
// every scheduler pass read all of them, 32,768 cards at 4,096 agents (a seventh of the
// CPU of a loaded run, and 3.1 GB of what it allocated in a minute).
type fleetCache struct {
	mu    sync.Mutex
	gen   uint64 // counts forgets, so that a read begun before one is not kept
	nodes []NodeGPUs
	at    time.Time
}

// get returns the fleet if it was read within fleetTTL, and the generation a read of it
// from the database must be kept with. The slices returned are the cache's: read only.
func (c *fleetCache) get() ([]NodeGPUs, bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes == nil || time.Since(c.at) >= fleetTTL {
		return nil, false, c.gen
	}
	return c.nodes, true, c.gen
}

// keep remembers nodes, read at generation gen, unless the cache forgot since.
func (c *fleetCache) keep(nodes []NodeGPUs, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == c.gen {
		c.nodes, c.at = nodes, time.Now()
	}
}

// forget drops the fleet after a write to it.
func (c *fleetCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.nodes = nil
}

// cloneFleet copies nodes and their GPUs (into one array) for a caller to change.
func cloneFleet(nodes []NodeGPUs) []NodeGPUs {
	n := 0
	for i := range nodes {
		n += len(nodes[i].GPUs)
	}
	out := make([]NodeGPUs, len(nodes))
	all := make([]GPU, 0, n)
	for i := range nodes {
		out[i] = nodes[i]
		start := len(all)
		all = append(all, nodes[i].GPUs...)
		out[i].GPUs = all[start:len(all):len(all)]
	}
	return out
}
