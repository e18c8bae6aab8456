package pools_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

func TestPoolsAPI(t *testing.T) {
	s := webtest.NewPoolServer(t)
	w := s.Get("/api/v1/pools")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/pools = %d %s", w.Code, w.Body)
	}
	pools := webtest.Decode[[]map[string]any](t, w)
	if len(pools) != 1 {
		t.Fatalf("GET /api/v1/pools = %d pools, want 1", len(pools))
	}
	p := pools[0]
	wantKeys := []string{"boot", "booting", "cluster", "config", "demand_gpus", "desired", "events", "name", "nodes", "provider", "size", "skips", "spec",
		"state", "status_at", "updated_at", "updated_by", "version"}
	if diff := cmp.Diff(wantKeys, slices.Sorted(maps.Keys(p))); diff != "" {
		t.Errorf("pool keys (-want +got):\n%s", diff)
	}
	if p["cluster"] != nil {
		t.Errorf("an agent pool's cluster = %v, want null", p["cluster"])
	}
	if p["name"] != "a100" || p["size"] != 4.0 || p["desired"] != 4.0 || p["version"] != 1.0 || p["state"] != "steady" {
		t.Errorf("pool = %v, want a100 of size 4, desired 4, version 1, steady", p)
	}
	if p["demand_gpus"] != 47.0 { // the latest size sample's, as the kashi_pool_demand_gpus gauge reads
		t.Errorf("demand_gpus = %v, want 47, the latest sample's", p["demand_gpus"])
	}
	cfg := p["config"].(map[string]any)
	if cfg["max_nodes"] != 6.0 || cfg["scale_up_delay_s"] != 120.0 || cfg["provider"] != "sim" {
		t.Errorf("config = %v", cfg)
	}
	nodes := p["nodes"].([]any)
	if len(nodes) != 1 || nodes[0].(map[string]any)["hostname"] != "a100-01" || nodes[0].(map[string]any)["state"] != "ready" {
		t.Errorf("nodes = %v, want a100-01 ready", nodes)
	}
	skips := p["skips"].([]any)
	if len(skips) != 2 || skips[0].(map[string]any)["reason"] != "at-max-size" {
		t.Errorf("skips = %v", skips)
	}
	events := p["events"].([]any)
	if len(events) != 2 {
		t.Fatalf("events = %v, want 2", events)
	}
	got := events[1].(map[string]any) // newest first: the scale-up is the older one
	want := map[string]any{"at": webtest.T0.Add(-30 * time.Minute).Format(time.RFC3339), "kind": "scale-up", "from": 4.0, "to": 5.0,
		"reason": "demand-waiting", "detail": "24 GPUs of ready demand waited 3m > 2m; memory 86% > 80% for 5m"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scale-up event (-want +got):\n%s", diff)
	}
	// The scaling loop's sentences are in the request's language, beside their codes.
	zh := webtest.Decode[[]map[string]any](t, s.Get("/api/v1/pools", "Accept-Language", "zh-CN"))[0]
	if got := zh["events"].([]any)[1].(map[string]any); got["reason"] != "demand-waiting" ||
		got["detail"] != "24 张 GPU 的就绪需求已等待 3分钟 > 2分钟；显存占用 86% > 80%，持续 5分钟" {
		t.Errorf("zh-CN scale-up event = %v", got)
	}
	if got := zh["skips"].([]any)[0].(map[string]any)["detail"]; got != "规模 6 = 最大 6" {
		t.Errorf("zh-CN skip = %v, want 规模 6 = 最大 6", got)
	}
	if w := s.Get("/api/v1/pools?events=0"); len(webtest.Decode[[]map[string]any](t, w)[0]["events"].([]any)) != 0 {
		t.Errorf("?events=0 still lists events")
	}
	if w := s.Get("/api/v1/pools?events=x"); w.Code != http.StatusBadRequest {
		t.Errorf("?events=x = %d, want 400", w.Code)
	}
}

func TestPoolsPage(t *testing.T) {
	s := webtest.NewPoolServer(t)
	w := s.Get("/pools")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /pools = %d", w.Code)
	}
	doc := webtest.Parse(t, w.Body.String())
	rows := doc.Find(`[data-testid=pool][data-pool=a100] [data-testid=scale-event]`)
	if rows.Length() != 2 {
		t.Fatalf("scale-event rows = %d, want 2", rows.Length())
	}
	up := rows.Last() // newest first
	text := strings.Join(strings.Fields(up.Text()), " ")
	for _, want := range []string{"Scale up", "a100 pool 4→5", "ready demand waited",
		"24 GPUs of ready demand waited 3m > 2m; memory 86% > 80% for 5m"} {
		if !strings.Contains(text, want) {
			t.Errorf("scale-up row %q lacks %q", text, want)
		}
	}
	if k, r := up.AttrOr("data-kind", ""), up.AttrOr("data-reason", ""); k != "scale-up" || r != "demand-waiting" {
		t.Errorf("scale-up row kind %q reason %q", k, r)
	}
	if text := rows.First().Text(); !strings.Contains(text, "a100 pool 5→4") || !strings.Contains(text, "node not needed") {
		t.Errorf("drain row = %q", strings.Join(strings.Fields(text), " "))
	}
	// The chart: an accessible SVG with the three lines and labelled axes.
	chart := doc.Find(`[data-testid=pool] [data-testid=pool-chart] svg`)
	if chart.Length() != 1 || chart.AttrOr("role", "") != "img" {
		t.Fatalf("chart svg = %d, role %q", chart.Length(), chart.AttrOr("role", ""))
	}
	if title := chart.Find("title").Text(); title != "Size of pool a100 over the last 6h" {
		t.Errorf("chart title = %q", title)
	}
	if desc := chart.Find("desc").Text(); !strings.Contains(desc, "Nodes now: 4, desired: 4") || !strings.Contains(desc, "ranged from 4 to 5;") {
		t.Errorf("chart desc = %q", desc)
	}
	for _, id := range []string{"chart-size", "chart-desired", "chart-demand"} {
		if d := chart.Find(`[data-testid=`+id+`]`).AttrOr("d", ""); !strings.HasPrefix(d, "M") {
			t.Errorf("%s path = %q", id, d)
		}
	}
	if axes := chart.Find(".axis-title").Text(); !strings.Contains(axes, "nodes") || !strings.Contains(axes, "time (UTC)") {
		t.Errorf("axis titles = %q", axes)
	}
	// Summary and the reasons it did not act.
	if got := doc.Find(`[data-testid=pool-size]`).Text(); got != "4" {
		t.Errorf("pool size = %q, want 4", got)
	}
	if got := doc.Find(`[data-testid=pool-region]`).Text(); got != "cn-gz1 / cn-gz1-a" {
		t.Errorf("pool region = %q, want cn-gz1 / cn-gz1-a", got)
	}
	var skips []string
	doc.Find(`[data-testid=pool-skip]`).Each(func(_ int, s *goquery.Selection) { skips = append(skips, s.Find(".reason").Text()) })
	if diff := cmp.Diff([]string{"at max size", "in cooldown"}, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if doc.Find(`[data-testid=pool-edit]`).Length() != 1 || doc.Find(`[data-testid=add-pool]`).Length() != 1 {
		t.Errorf("an admin sees no edit link or add form")
	}
}

func TestPoolsPageChinese(t *testing.T) {
	s := webtest.NewPoolServer(t)
	doc := webtest.Parse(t, s.Get("/pools", "Accept-Language", "zh-CN").Body.String())
	text := strings.Join(strings.Fields(doc.Find(`[data-testid=scale-event][data-kind=scale-up]`).Text()), " ")
	for _, want := range []string{"扩容", "资源池 a100 4→5", "就绪需求等待过久", "24 张 GPU 的就绪需求已等待 3分钟 > 2分钟；显存占用 86% > 80%，持续 5分钟"} {
		if !strings.Contains(text, want) {
			t.Errorf("zh scale-up row %q lacks %q", text, want)
		}
	}
	if got := doc.Find(`[data-testid=pool-skip][data-reason=at-max-size] .reason`).Text(); got != "已达最大规模" {
		t.Errorf("zh skip = %q, want 已达最大规模", got)
	}
	if got := doc.Find(`[data-testid=pool-skip][data-reason=at-max-size] .detail`).Text(); got != "规模 6 = 最大 6" {
		t.Errorf("zh skip's detail = %q, want 规模 6 = 最大 6", got)
	}
	if got := doc.Find(`[data-testid=pool-chart] svg title`).Text(); got != "资源池 a100 最近 6小时 的规模" {
		t.Errorf("zh chart title = %q", got)
	}
}

func TestPoolsPageHTMX(t *testing.T) {
	s := webtest.NewPoolServer(t)
	w := s.Get("/pools?range=1h", "HX-Request", "true")
	body := w.Body.String()
	if w.Code != http.StatusOK || strings.Contains(body, "<html") {
		t.Fatalf("HTMX GET /pools = %d, want the partial: %.200s", w.Code, body)
	}
	live := webtest.Parse(t, body).Find(`#pools-live`)
	if live.Length() != 1 {
		t.Fatalf("partial has no #pools-live")
	}
	if got := live.AttrOr("hx-trigger", ""); got != "every 15s" {
		t.Errorf("hx-trigger = %q", got)
	}
	if got := live.AttrOr("hx-get", ""); got != "/pools?range=1h" {
		t.Errorf("hx-get = %q, want the range kept", got)
	}
	if live.Find(`[data-testid=scale-event]`).Length() != 2 || live.Find(`[data-testid=pool-chart]`).Length() != 1 {
		t.Errorf("partial lacks the events or the chart")
	}
	if title := live.Find(`svg title`).Text(); !strings.Contains(title, "1h") {
		t.Errorf("chart title = %q, want the 1h range", title)
	}
}

func TestPoolsPageEmptyAndViewer(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	u, _ := s.Store.CreateUser(ctx, "vic", "pw-vic", models.RoleViewer, webtest.T0)
	tok, _, _ := s.Store.CreateAPIToken(ctx, u.ID, "t", models.ScopeRead, webtest.T0)
	doc := webtest.Parse(t, s.Get("/pools", webtest.Bearer(tok)...).Body.String())
	if doc.Find(`[data-testid=pools-empty]`).Length() != 1 {
		t.Errorf("no pools: the empty note is missing")
	}
	if doc.Find(`[data-testid=add-pool]`).Length() != 0 {
		t.Errorf("a viewer sees the add-pool form")
	}
	var nav []string
	doc.Find(`nav.nav a`).Each(func(_ int, s *goquery.Selection) { nav = append(nav, s.AttrOr("href", "")) })
	for _, want := range []string{"/pools", "/alerts", "/notifications"} {
		if !strings.Contains(strings.Join(nav, " "), want) {
			t.Errorf("nav %v lacks %s", nav, want)
		}
	}
}

func TestPoolConfigForm(t *testing.T) {
	s := webtest.NewPoolServer(t)
	doc := webtest.Parse(t, s.Get("/pools/a100/edit").Body.String())
	form := doc.Find(`[data-testid=pool-form]`)
	if form.Length() != 1 {
		t.Fatalf("no configuration form")
	}
	for _, name := range []string{"provider", "spec", "gpus_per_node", "flavor", "image", "region", "zone", "vpc", "subnet", "security_group", "disk_type", "disk_gb", "enabled", "min_nodes", "max_nodes",
		"step", "reserved_min", "any_spec", "boot_timeout_s", "scale_up_delay_s", "memory_high_pct", "memory_high_window_s",
		"memory_low_pct", "memory_low_window_s", "unneeded_s", "cooldown_up_s", "cooldown_down_s", "max_in_flight",
		"drain_buffer_s", "adopt_unknown", "note", "_csrf"} {
		if form.Find(`[name=`+name+`]`).Length() != 1 {
			t.Errorf("form lacks input %q", name)
		}
	}
	if v := form.Find(`[name=max_nodes]`).AttrOr("value", ""); v != "6" {
		t.Errorf("max_nodes = %q, want 6", v)
	}
	if _, ok := form.Find(`[name=enabled]`).Attr("checked"); !ok {
		t.Errorf("enabled is not checked")
	}

	values := func(change map[string]string) url.Values {
		v := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "flavor": {"gpu.a100.8x"},
			"image": {"kashi-agent"}, "enabled": {"on"}, "min_nodes": {"1"}, "max_nodes": {"6"}, "scale_up_delay_s": {"2"}}
		for k, x := range change {
			v.Set(k, x)
		}
		return v
	}
	tests := map[string]struct {
		change map[string]string
		field  string
		msg    string
	}{
		"max under min": {map[string]string{"max_nodes": "0"}, "max_nodes",
			"Max nodes: must be at least the min nodes (1) and at most 10000; got 0"},
		"not a number": {map[string]string{"gpus_per_node": "eight"}, "gpus_per_node", "GPUs per node: Enter a whole number."},
		"low above high": {map[string]string{"memory_high_pct": "50", "memory_low_pct": "60"}, "memory_low_pct",
			"Memory low mark (%): must be under the memory high mark (50%); got 60%"},
		"negative window": {map[string]string{"unneeded_s": "-5"}, "unneeded_s", "Unneeded time (min): must be 0 (default)"},
		"window too long": {map[string]string{"unneeded_s": "43201"}, "unneeded_s",
			"Unneeded time (min): must be 0 (default) to 43200 min."},
		"too many nodes": {map[string]string{"max_nodes": "10001"}, "max_nodes", "Max nodes: must be 0 to 10000."},
		"bad percent":    {map[string]string{"memory_high_pct": "lots"}, "memory_high_pct", "Memory high mark (%): Enter a number."},
		"price in cents": {map[string]string{"hourly_price_fen": "12.345"}, "hourly_price_fen",
			"List price per machine-hour (¥/h): must be an amount in yuan with at most two decimals, e.g. 12.50."},
		"price too high": {map[string]string{"hourly_price_fen": "100000.01"}, "hourly_price_fen",
			"List price per machine-hour (¥/h): must be ¥0.00/h to ¥100000.00/h."},
		"quote in image": {map[string]string{"image": `img"1`}, "image",
			"Image: must be at most 128 characters, without quotes, braces or backslashes"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := s.Form("/pools/a100", values(tc.change))
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("POST = %d, want 422", resp.StatusCode)
			}
			doc := webtest.DocOf(t, resp)
			if msg := doc.Find(`[data-testid=field-error][data-field=` + tc.field + `]`).Text(); !strings.Contains(msg, tc.msg) {
				t.Errorf("error beside %s = %q, want %q", tc.field, msg, tc.msg)
			}
			if v := doc.Find(`[name=`+tc.field+`]`).AttrOr("aria-invalid", ""); v != "true" {
				t.Errorf("%s aria-invalid = %q", tc.field, v)
			}
			if v := doc.Find(`[name=max_nodes]`).AttrOr("value", ""); v != values(tc.change).Get("max_nodes") {
				t.Errorf("max_nodes shows %q, want what was typed", v)
			}
		})
	}
	if n := s.Scales.Load(); n != 0 {
		t.Fatalf("refused saves woke the scaler %d times", n)
	}

	// A good save: a new version, the scaler woken, the history shows the change.
	resp := s.Form("/pools/a100", values(map[string]string{"max_nodes": "8", "step": "2", "note": "more for the launch"}))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/pools/a100/edit?saved=2" {
		t.Fatalf("POST = %d → %q, want 303 to ?saved=2", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := s.Scales.Load(); n != 1 {
		t.Errorf("save woke the scaler %d times, want 1", n)
	}
	doc = webtest.Parse(t, s.Get("/pools/a100/edit?saved=2").Body.String())
	if n := doc.Find(`[data-testid=notice]`).Text(); !strings.Contains(n, "Saved as version 2") {
		t.Errorf("notice = %q", n)
	}
	v2 := doc.Find(`[data-testid=pool-version][data-version="2"]`)
	if text := strings.Join(strings.Fields(v2.Text()), " "); !strings.Contains(text, "Max nodes 6 → 8") ||
		!strings.Contains(text, "Step (machines per action) 0 → 2") || !strings.Contains(text, "more for the launch") || !strings.Contains(text, "tester") ||
		strings.Contains(text, "Scale-up delay") {
		t.Errorf("version 2 row = %q", text)
	}
	if v2.Find(`[data-testid=rollback]`).Length() != 0 {
		t.Errorf("the current version offers a roll back")
	}

	// Saving the same again adds no version and wakes nothing.
	resp = s.Form("/pools/a100", values(map[string]string{"max_nodes": "8", "step": "2"}))
	if resp.Header.Get("Location") != "/pools/a100/edit?same=2" || s.Scales.Load() != 1 {
		t.Errorf("same save → %q, %d wakes", resp.Header.Get("Location"), s.Scales.Load())
	}

	// Roll back to version 1: version 3 holds version 1's configuration.
	if doc.Find(`[data-testid=pool-version][data-version="1"] [data-testid=rollback]`).Length() != 1 {
		t.Fatalf("version 1 has no roll back button")
	}
	resp = s.Form("/pools/a100/rollback/1", url.Values{})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/pools/a100/edit?rolled=1" {
		t.Fatalf("roll back = %d → %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	p, err := s.Store.ConfiguredPools(context.Background())
	if err != nil || len(p) != 1 {
		t.Fatal(err)
	}
	if diff := cmp.Diff(webtest.A100Config(), p[0].Config); diff != "" || p[0].Version != 3 {
		t.Errorf("after the roll back: version %d, config (-v1 +got):\n%s", p[0].Version, diff)
	}
	if n := s.Scales.Load(); n != 2 {
		t.Errorf("roll back woke the scaler %d times in all, want 2", n)
	}
	if n := webtest.Parse(t, s.Get("/pools/a100/edit?rolled=1").Body.String()).Find(`[data-testid=notice]`).Text(); !strings.Contains(n, "Rolled back to version 1, saved as version 3") {
		t.Errorf("notice = %q", n)
	}
	if resp := s.Form("/pools/a100/rollback/9", url.Values{}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("roll back to a missing version = %d, want 404", resp.StatusCode)
	}
}

// TestPoolFormUnits: durations are shown in minutes with their default in the help, in
// both languages; the stored seconds are unchanged.
func TestPoolFormUnits(t *testing.T) {
	s := webtest.NewPoolServer(t)
	tests := map[string]struct {
		lang                  string
		label, help, pctLabel string
	}{
		"en": {"en", "Scale-up delay (min)", "0 means 2 min.", "Memory high mark (%)"},
		"zh": {"zh-CN", "扩容等待时间（分钟）", "0 表示 2 分钟。", "显存高水位（%）"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			doc := webtest.Parse(t, s.Get("/pools/a100/edit", "Cookie", "kashi_lang="+tc.lang).Body.String())
			f := doc.Find(`[data-field=scale_up_delay_s]`)
			if v := f.Find(`input`).AttrOr("value", ""); v != "2" {
				t.Errorf("scale-up delay shows %q, want 2 (minutes)", v)
			}
			if got := f.Find(`label`).Text(); got != tc.label {
				t.Errorf("label = %q, want %q", got, tc.label)
			}
			if got := f.Find(`.help`).Text(); !strings.HasSuffix(got, tc.help) {
				t.Errorf("help = %q, want it to end %q", got, tc.help)
			}
			if got := doc.Find(`[data-field=memory_high_pct] label`).Text(); got != tc.pctLabel {
				t.Errorf("percent label = %q, want %q", got, tc.pctLabel)
			}
		})
	}
	v := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "flavor": {"gpu.a100.8x"},
		"image": {"kashi-agent"}, "enabled": {"on"}, "min_nodes": {"1"}, "max_nodes": {"6"}, "scale_up_delay_s": {"2"},
		"unneeded_s": {"12.5"}}
	if resp := s.Form("/pools/a100", v); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST = %d", resp.StatusCode)
	}
	p, err := s.Store.ConfiguredPoolByName(context.Background(), "a100")
	if err != nil || p.Config.ScaleUpDelayS != 120 || p.Config.UnneededS != 750 {
		t.Errorf("stored %+v, %v; want 120 s and 750 s", p.Config, err)
	}
	text := strings.Join(strings.Fields(webtest.Parse(t, s.Get("/pools/a100/edit").Body.String()).
		Find(`[data-testid=pool-version][data-version="2"]`).Text()), " ")
	if !strings.Contains(text, "Unneeded time 0 min → 12.5 min") {
		t.Errorf("version 2 row = %q", text)
	}
}

func TestPoolSpecLockedWithNodes(t *testing.T) {
	s := webtest.NewPoolServer(t)
	v := url.Values{"provider": {"sim"}, "spec": {"H800-80G"}, "gpus_per_node": {"8"}, "min_nodes": {"1"}, "max_nodes": {"6"}}
	resp := s.Form("/pools/a100", v)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("spec change with nodes = %d, want 422", resp.StatusCode)
	}
	if msg := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=spec]`).Text(); !strings.Contains(msg, "has 1 nodes of A100-80G") {
		t.Errorf("spec error = %q", msg)
	}
}

func TestPoolNew(t *testing.T) {
	s := webtest.NewPoolServer(t)
	w := s.Get("/pools/new?name=sh-h800")
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/pools/sh-h800/edit" {
		t.Fatalf("GET /pools/new = %d → %q", w.Code, w.Header().Get("Location"))
	}
	doc := webtest.Parse(t, s.Get("/pools/sh-h800/edit").Body.String())
	if h := doc.Find("h1").Text(); h != "New pool sh-h800" {
		t.Errorf("heading = %q", h)
	}
	if a := doc.Find(`[data-testid=pool-form]`).AttrOr("action", ""); a != "/pools/sh-h800" {
		t.Errorf("form action = %q", a)
	}
	v := url.Values{"provider": {"exec"}, "spec": {"H800-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"2"}}
	if resp := s.Form("/pools/sh-h800", v); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create = %d", resp.StatusCode)
	}
	if _, err := s.Store.ConfiguredPools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := webtest.Parse(t, s.Get("/pools").Body.String()).Find(`[data-testid=pool][data-pool="sh-h800"] [data-testid=pool-state]`).Text(); got != "scaling off" {
		t.Errorf("new pool state = %q, want scaling off", got)
	}
}

// TestPoolNameRefused: a new pool's name goes into URLs, cloud tags and the exec script's
// arguments, so one with a slash, a space or a percent sign is refused on the form (422,
// the form again with why) and no pool is made.
func TestPoolNameRefused(t *testing.T) {
	s := webtest.NewPoolServer(t)
	const name = "gpu/a100 50%"
	w := s.Get("/pools/new?name=" + url.QueryEscape(name))
	edit := w.Header().Get("Location")
	if edit != "/pools/gpu%2Fa100%2050%25/edit" {
		t.Fatalf("GET /pools/new → %q", edit)
	}
	action := webtest.Parse(t, s.Get(edit).Body.String()).Find(`[data-testid=pool-form]`).AttrOr("action", "")
	v := url.Values{"provider": {"exec"}, "spec": {"H800-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"2"}}
	resp := s.Form(action, v)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("POST %s = %d, want 422", action, resp.StatusCode)
	}
	if msg := webtest.DocOf(t, resp).Find(`.form-error`).Text(); !strings.Contains(msg, "name") {
		t.Errorf("the form says %q, want why the name is refused", msg)
	}
	if pools, _ := s.Store.ConfiguredPools(context.Background()); len(pools) != 1 {
		t.Errorf("pools = %+v, want only the first", pools)
	}
}

func TestPoolRollbackToSameConfig(t *testing.T) {
	s := webtest.NewPoolServer(t)
	ctx := context.Background()
	cfg := webtest.A100Config()
	cfg.MaxNodes = 9
	s.Store.SavePoolConfig(ctx, "a100", cfg, "tester", "", webtest.T0)
	s.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "", webtest.T0) // v3 equals v1
	resp := s.Form("/pools/a100/rollback/1", url.Values{})
	if resp.Header.Get("Location") != "/pools/a100/edit?same=3" || s.Scales.Load() != 0 {
		t.Errorf("roll back to the current configuration → %q, %d wakes; want ?same=3 and none", resp.Header.Get("Location"), s.Scales.Load())
	}
}

func TestPoolSetAPI(t *testing.T) {
	s := webtest.NewPoolServer(t)
	cfg := webtest.A100Config()
	cfg.MaxNodes = 10
	w := s.Post("/api/v1/pools/a100?note=script", webtest.MustJSON(t, cfg))
	if w.Code != http.StatusOK {
		t.Fatalf("POST /api/v1/pools/a100 = %d %s", w.Code, w.Body)
	}
	p := webtest.Decode[map[string]any](t, w)
	if p["version"] != 2.0 || p["config"].(map[string]any)["max_nodes"] != 10.0 {
		t.Errorf("answer = %v, want version 2 with max 10", p)
	}
	if s.Scales.Load() != 1 {
		t.Errorf("scaler woken %d times, want 1", s.Scales.Load())
	}
	versions, _ := s.Store.PoolConfigVersions(context.Background(), "a100")
	if versions[0].Note != "script" || versions[0].By != "tester" {
		t.Errorf("version 2 = %+v", versions[0])
	}
	cfg.MinNodes = 20
	w = s.Post("/api/v1/pools/a100", webtest.MustJSON(t, cfg))
	if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != "max_nodes" {
		t.Errorf("bad config = %d %v, want 422 on max_nodes", w.Code, e)
	}
	if w := s.Post("/api/v1/pools/a100", `{"max_nodes": 3, "colour": "red"}`); w.Code != http.StatusBadRequest {
		t.Errorf("unknown field = %d, want 400", w.Code)
	}
}
