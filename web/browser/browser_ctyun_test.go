package browser_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web"
	"kashi/web/webtest"
)

// TestBrowserCloudPool shows a China Telecom Cloud pool in Chromium: the board names its
// region, the pools page its list price and what a scale-up costs, and the form its flavors,
// on a desktop and on a 390×844 phone, where no page scrolls sideways. Screenshots go to
// KASHI_SCREENSHOTS when set.
func TestBrowserCloudPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	cfg := models.PoolConfig{Provider: "ctyun", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "pi7.8xlarge.a100", Image: "img-kashi",
		Region: "cn-gz1", Zone: "cn-gz1-a", Enabled: true, MinNodes: 1, MaxNodes: 6, HourlyPriceFen: 2550}
	p, err := s.SavePoolConfig(ctx, "gz-a100", cfg, "admin", "", now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	req := models.NodeRegistration{Hostname: "gz-a100-01", Pool: "gz-a100"}
	for i := range 8 {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: "g" + string(rune('0'+i)), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	if _, err := s.RegisterNode(ctx, req, "h", now); err != nil {
		t.Fatal(err)
	}
	s.SetPoolPrice(ctx, p.ID, 31012, models.PriceFromProvider, now)
	s.RecordScalingEvent(ctx, p.ID, models.ScalingEvent{Kind: "scale-up", FromSize: 0, ToSize: 1, Reason: "below-min",
		Detail: "size 0 < min 1", HourlyCostFen: 31012}, now.Add(-30*time.Minute))
	if _, err := s.CreateUser(ctx, "admin", "pw-admin", models.RoleAdmin, now); err != nil {
		t.Fatal(err)
	}
	h := web.NewAreas(s, &webtest.FakeSched{}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: 24 * time.Hour, Flavors: &webtest.StubFlavors{}},
		func() time.Time { return now })
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)
	if err := chromedp.Do(b.ctx, b.login("admin", "pw-admin")); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		for _, page := range []struct{ path, wait, shot string }{
			{"/", `[data-testid=node-region]`, "board"},
			{"/pools", `[data-testid=pool-price]`, "pools"},
			{"/pools/gz-a100/edit", `[data-testid=flavor-select]`, "pool-form"},
		} {
			err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(b.url+page.path),
				chromedp.WaitVisible(css(page.wait)), b.shot("ctyun-"+page.shot+"-"+size.name+".png"))
			if err != nil {
				t.Fatalf("%s on a %s: %v", page.path, size.name, err)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil || width > int(size.w) {
				t.Errorf("%s on a %s is %d px wide (%v), want at most %d", page.path, size.name, width, err, size.w)
			}
		}
	}
}
