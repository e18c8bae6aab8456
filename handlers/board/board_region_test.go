package board_test

import (
	"strings"
	"testing"

	"kashi/web/webtest"
)

// TestBoardNodeRegion: a node's header names its pool's region and zone; a node of a pool
// without a region (own machines) shows none.
func TestBoardNodeRegion(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.Register(webtest.Node("own-01").InPool("own").Cards(webtest.A100Name, webtest.A100MiB, 1))
	doc := webtest.Parse(t, s.Get("/").Body.String())
	got := strings.TrimSpace(doc.Find(`[data-node="a100-01"] .node-head [data-testid="node-region"]`).Text())
	if got != "cn-gz1 / cn-gz1-a" {
		t.Errorf("a100-01's header region = %q, want %q", got, "cn-gz1 / cn-gz1-a")
	}
	if n := doc.Find(`[data-node="own-01"] [data-testid="node-region"]`).Length(); n != 0 {
		t.Errorf("own-01 shows %d regions, want none", n)
	}
	doc = webtest.Parse(t, s.Get("/pools").Body.String())
	if got := strings.TrimSpace(doc.Find(`[data-pool="a100"] [data-testid="pool-region"]`).Text()); got != "cn-gz1 / cn-gz1-a" {
		t.Errorf("pools page region of a100 = %q, want %q", got, "cn-gz1 / cn-gz1-a")
	}
}
