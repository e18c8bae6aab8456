package browser_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserPlaceAttributes shows, in both languages at desktop and phone sizes, what pools
// state of their interconnect and storage beside the free cards on the submit form and on
// the pools page, a 16-card task waiting because its pool has no network between nodes,
// and the pool form's settings; no page scrolls sideways on the phone.
func TestBrowserPlaceAttributes(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision")
	s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	s.Register(webtest.Node("h800-01").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 8))
	s.Register(webtest.Node("h800-02").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 8))
	a100 := webtest.A100Config()
	a100.IntraNodeLink, a100.IntraNodeGBytesS, a100.InterNodeLink, a100.InterNodePorts, a100.InterNodePortGbps = models.LinkNVLink, 600, models.LinkRoCE, 4, 200
	a100.LocalStorageMBps, a100.SharedStorageMBps = 3000, 2000
	if _, err := s.Store.SavePoolConfig(ctx, "a100", a100, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SavePoolConfig(ctx, "h800", models.PoolConfig{Provider: "static", Spec: "H800-80G", GPUsPerNode: 8, MaxNodes: 2,
		IntraNodeLink: models.LinkPCIe, InterNodeLink: models.LinkNone, LocalStorageMBps: 2000}, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	s.Create(webtest.Task("h800-16card").Spec("H800-80G").GPUs(16).Ready(), webtest.T0.Add(-time.Minute))

	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "place-attrs", []shotPage{
		{"queue", "/queue", `[data-testid=capacity-attrs][data-spec=H800-80G]`},
		{"submit-form", "/queue#f-min_inter_node_gbps", `#f-min_inter_node_gbps`},
		{"pools", "/pools", `[data-testid=pool-attrs]`},
		{"pool-form", "/pools/h800/edit", `select[name=inter_node_link]`},
	})
}
