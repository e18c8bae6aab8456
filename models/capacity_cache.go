package models

import (
	"sync"
	"time"
)

// capacityTTL bounds how long a pool capacity is reused between submits. Changes this
// process makes (a node registers or is removed, a pool is reconfigured) clear it at once;
// another replica's changes show within the TTL.
const capacityTTL = 10 * time.Second

// capacityCache remembers largestPool per spec: every submit checks it, and counting the
// fleet's GPUs each time would cost more than the rest of the submit.
type capacityCache struct {
	mu     sync.Mutex
	at     time.Time
	bySpec map[string]int64
}

// get returns the cached capacity of spec, if fresh.
func (c *capacityCache) get(spec string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.bySpec[spec]
	return n, ok && time.Since(c.at) < capacityTTL
}

// put remembers the capacity of spec.
func (c *capacityCache) put(spec string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bySpec == nil || time.Since(c.at) >= capacityTTL {
		c.bySpec, c.at = make(map[string]int64), time.Now()
	}
	c.bySpec[spec] = n
}

// clear forgets every capacity after the fleet changed.
func (c *capacityCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bySpec = nil
}
