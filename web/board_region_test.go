package web_test

import (
	"strings"
	"testing"
)

// TestBoardNodeRegion: a node's header names its pool's region and zone; a node of a pool
// without a region (own machines) shows none.
func TestBoardNodeRegion(t *testing.T) {
	s := newPoolServer(t)
	s.register(node("own-01").inPool("own").cards(a100Name, a100MiB, 1))
	doc := parse(t, s.get("/").Body.String())
	got := strings.TrimSpace(doc.Find(`[data-node="a100-01"] .node-head [data-testid="node-region"]`).Text())
	if got != "cn-gz1 / cn-gz1-a" {
		t.Errorf("a100-01's header region = %q, want %q", got, "cn-gz1 / cn-gz1-a")
	}
	if n := doc.Find(`[data-node="own-01"] [data-testid="node-region"]`).Length(); n != 0 {
		t.Errorf("own-01 shows %d regions, want none", n)
	}
	doc = parse(t, s.get("/pools").Body.String())
	if got := strings.TrimSpace(doc.Find(`[data-pool="a100"] [data-testid="pool-region"]`).Text()); got != "cn-gz1 / cn-gz1-a" {
		t.Errorf("pools page region of a100 = %q, want %q", got, "cn-gz1 / cn-gz1-a")
	}
}
