package models

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

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

// A refused registration forgets no token: a stream of them, from anyone with the join token,
// must not make every agent request read its node again.
func TestRefusedRegistrationKeepsTokens(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, now := context.Background(), time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	req := NodeRegistration{Hostname: "n1", Pool: "p", GPUs: []GPUInfo{{UUID: "g0", Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
	if _, err := s.RegisterNode(ctx, req, "hash-n1", now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NodeByTokenHash(ctx, "hash-n1"); err != nil {
		t.Fatal(err)
	}
	req.Hostname = "thief"
	if _, err := s.RegisterNode(ctx, req, "hash-thief", now); !errors.Is(err, ErrConflict) {
		t.Fatalf("RegisterNode with n1's card = %v, want ErrConflict", err)
	}
	if _, ok, _ := s.nodeTokens.get("hash-n1"); !ok {
		t.Error("n1's token was forgotten after a refused registration")
	}
}
