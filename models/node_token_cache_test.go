package models

import "testing"

// A node read from the database before its token changed is not remembered after: the read
// raced the registration and may hold the old token's node.
func TestNodeTokenCacheDropsReadsBeforeAClear(t *testing.T) {
	var c nodeTokenCache
	if _, ok, _ := c.get("h"); ok {
		t.Fatal("empty cache get(h) found a node")
	}
	c.put("h", Node{ID: 1}, 0)
	if n, ok, _ := c.get("h"); !ok || n.ID != 1 {
		t.Fatalf("get(h) = %v, %v, want node 1", n, ok)
	}
	_, _, gen := c.get("other")
	c.clear()
	if _, ok, _ := c.get("h"); ok {
		t.Error("get(h) after clear found a node")
	}
	c.put("other", Node{ID: 2}, gen)
	if _, ok, _ := c.get("other"); ok {
		t.Error("a node read before the clear was kept")
	}
}
