package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/models"
	"kashi/web/webtest"
)

// TestPoolPrice: an admin types the list price in yuan, which is stored in fen and shown
// back in yuan; the pools page shows it beside the pool with its source and the cost at the
// maximum size, a quote of the provider wins over the setting, and a scale-up's event says
// what it costs per hour, in both languages.
func TestPoolPrice(t *testing.T) {
	s := webtest.NewPoolServer(t)
	ctx := context.Background()
	v := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "region": {"cn-gz1"}, "zone": {"cn-gz1-a"},
		"enabled": {"on"}, "min_nodes": {"1"}, "max_nodes": {"6"}, "hourly_price_fen": {"25.5"}}
	if resp := s.Form("/pools/a100", v); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /pools/a100 = %d, want 303", resp.StatusCode)
	}
	cp, err := s.Store.ConfiguredPoolByName(ctx, "a100")
	if err != nil || cp.Config.HourlyPriceFen != 2550 {
		t.Fatalf("stored price = %d fen, %v; want 2550", cp.Config.HourlyPriceFen, err)
	}
	form := webtest.Parse(t, s.Get("/pools/a100/edit").Body.String())
	if got := form.Find(`[name=hourly_price_fen]`).AttrOr("value", ""); got != "25.50" {
		t.Errorf("the form shows the price as %q, want 25.50", got)
	}
	price := func(lang string) (string, string) {
		doc := webtest.Parse(t, s.Get("/pools", "Accept-Language", lang).Body.String())
		dd := doc.Find(`[data-pool="a100"] [data-testid="pool-price"]`)
		return strings.Join(strings.Fields(dd.Text()), " "), dd.AttrOr("data-source", "")
	}
	if got, src := price("en"); got != "¥25.50/h · from the pool's settings; ¥153.00/h at the maximum size" || src != "settings" {
		t.Errorf("price beside the pool = %q from %q", got, src)
	}
	if err := s.Store.SetPoolPrice(ctx, cp.ID, 31012, models.PriceFromProvider, webtest.T0); err != nil {
		t.Fatal(err)
	}
	ev := models.ScalingEvent{Kind: "scale-up", FromSize: 1, ToSize: 3, Reason: "below-min", Detail: "size 1 < min 3",
		HourlyCostFen: 62024}
	if err := s.Store.RecordScalingEvent(ctx, cp.ID, ev, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if got, src := price("en"); got != "¥310.12/h · quoted by sim; ¥1,860.72/h at the maximum size" || src != "provider" {
		t.Errorf("quoted price beside the pool = %q from %q", got, src)
	}
	if got, _ := price("zh-CN"); got != "310.12 元/小时 · 由 sim 报价；最大规模时 1,860.72 元/小时" {
		t.Errorf("zh price beside the pool = %q", got)
	}
	for lang, want := range map[string]string{"en": "+¥620.24/h at list price", "zh-CN": "按标价每小时 +620.24 元"} {
		doc := webtest.Parse(t, s.Get("/pools", "Accept-Language", lang).Body.String())
		if got := doc.Find(`[data-pool="a100"] [data-testid="event-cost"]`).First().Text(); got != want {
			t.Errorf("%s: the scale-up's cost = %q, want %q", lang, got, want)
		}
	}
}
