package models

import (
	"sync"
	"time"
)

// nodeTokenTTL bounds how long a verified node token is trusted without reading it again. A
// registration in this process (which replaces a node's token) forgets every token at once;
// one on another replica takes effect here within the TTL.
const nodeTokenTTL = 15 * time.Second

// nodeTokenCache remembers the node each verified token hash belongs to: every agent request
// is authenticated, and a query per request cost more than the rest of a poll. Unknown
// hashes are never kept, so the cache holds at most one entry per node.
type nodeTokenCache struct {
	// mu is read-locked by the lookups: every agent request makes one, and on one mutex
	// they queued behind each other whenever the process was short of CPU (at 4,096
	// agents, the most waited-on lock of the server).
	mu     sync.RWMutex
	gen    uint64 // counts clears, so that a read begun before one is not kept
	byHash map[string]cachedNode
}

type cachedNode struct {
	node Node
	at   time.Time
}

// get returns the node of hash if it was verified within the TTL, and the generation a
// read of it from the database must be put back with.
func (c *nodeTokenCache) get(hash string) (Node, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.byHash[hash]
	if !ok || time.Since(e.at) >= nodeTokenTTL {
		return Node{}, false, c.gen
	}
	return e.node, true, c.gen
}

// put remembers a node read from the database at generation gen, unless tokens were
// forgotten since.
func (c *nodeTokenCache) put(hash string, n Node, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.byHash == nil {
		c.byHash = make(map[string]cachedNode)
	}
	c.byHash[hash] = cachedNode{node: n, at: time.Now()}
}

// clear forgets every token after a node's token changed.
func (c *nodeTokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.byHash = nil
}
