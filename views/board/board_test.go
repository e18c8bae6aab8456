package board

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/views"
	"kashi/views/viewstest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const gib = 1024 // MiB

// gpu builds a card of an 80 GiB A100.
func gpu(node string, i int) views.BoardGPU {
	return views.BoardGPU{
		UUID:           "GPU-" + node + "-" + strconv.Itoa(i),
		Index:          i,
		MemoryTotalMiB: 80 * gib,
		TempC:          40 + i,
		PowerW:         90 + 10*i,
		State:          api.GPUFree,
	}
}

func held(g views.BoardGPU, taskID int64, project, task string, util int, memMiB int64) views.BoardGPU {
	g.Held, g.TaskID, g.Project, g.Task = true, taskID, project, task
	g.UtilPct, g.MemoryUsedMiB, g.State = util, memMiB, api.GPUBusy
	return g
}

// idleFor marks a held card idle for d; longer than the fixture's 30 min it stands out.
func idleFor(g views.BoardGPU, d time.Duration) views.BoardGPU {
	g.State, g.IdleFor, g.LongIdle = api.GPUIdle, d, d > 30*time.Minute
	return g
}

// saturatedFor marks a card saturated for d; longer than the fixture's hour it stands out.
func saturatedFor(g views.BoardGPU, d time.Duration) views.BoardGPU {
	g.SaturatedFor, g.LongSaturated = d, d > time.Hour
	return g
}

// boardFixture is a small fleet with a card in every state:
//
//	a100-01: 0-1 busy, 2 idle 10m, 3 idle 2h5m (long), 4 saturated 90m, 5 saturated 20m (not
//	         yet), 6 free, 7 stale (held and idle for hours, but no data)
//	a100-02: lost, 8 free cards
//	h800-01: 4 busy cards, 1 of them long-idle and saturated at once (memory full, no compute)
func boardFixture() BoardData {
	a1 := make([]views.BoardGPU, 8)
	for i := range a1 {
		a1[i] = gpu("a100-01", i)
	}
	a1[0] = held(a1[0], 101, "llm-pretrain", "pretrain-7b", 97, 71*gib)
	a1[1] = held(a1[1], 101, "llm-pretrain", "pretrain-7b", 95, 70*gib)
	a1[2] = held(a1[2], 102, "vision", "eval-resnet", 2, 3*gib)
	a1[2] = idleFor(a1[2], 10*time.Minute)
	a1[3] = held(a1[3], 103, "vision", "notebook-zhang", 0, 1*gib)
	a1[3] = idleFor(a1[3], 2*time.Hour+5*time.Minute)
	a1[4] = held(a1[4], 104, "speech", "asr-finetune", 100, 79*gib)
	a1[4] = saturatedFor(a1[4], 90*time.Minute)
	a1[5] = held(a1[5], 104, "speech", "asr-finetune", 99, 78*gib)
	a1[5] = saturatedFor(a1[5], 20*time.Minute)
	a1[7] = held(a1[7], 105, "vision", "stale-job", 0, 0)
	a1[7].IdleFor, a1[7].State = 5*time.Hour, api.GPUStale

	a2 := make([]views.BoardGPU, 8)
	for i := range a2 {
		a2[i] = gpu("a100-02", i)
	}

	h1 := make([]views.BoardGPU, 4)
	for i := range h1 {
		h1[i] = held(gpu("h800-01", i), 201, "llm-sft", "sft <chat> & tools", 80+i, 60*gib)
		h1[i].MemoryTotalMiB = 80 * gib
	}
	h1[3].UtilPct = 0
	h1[3] = saturatedFor(idleFor(h1[3], 45*time.Minute), 75*time.Minute)

	id := int64(0)
	for _, gs := range [][]views.BoardGPU{a1, a2, h1} {
		for i := range gs {
			id++
			gs[i].ID = id
		}
	}
	return BoardData{
		Now:     viewstest.T0,
		Options: BoardOptions{Pools: []string{"bj-a100", "sh-h800"}, Specs: []string{"A100-80G", "H800-80G"}, Projects: []string{"llm-pretrain", "llm-sft", "speech", "vision"}},
		Pools: []PoolSummary{
			{Name: "bj-a100", Spec: "A100-80G", Nodes: 2, Total: 16, Busy: 4, IdleHeld: 3, Free: 9, MeanUtil: 24, MemUsedMiB: 302 * gib, MemTotalMiB: 1280 * gib},
			{Name: "sh-h800", Spec: "H800-80G", Nodes: 1, Total: 4, Busy: 3, IdleHeld: 1, Free: 0, MeanUtil: 61, MemUsedMiB: 240 * gib, MemTotalMiB: 320 * gib},
		},
		Nodes: []views.BoardNode{
			{ID: 1, Hostname: "a100-01", Pool: "bj-a100", Spec: "A100-80G", State: "ready", LastSeen: viewstest.T0.Add(-3 * time.Second), MeanUtil: 49, MemUsedMiB: 302 * gib, MemTotalMiB: 640 * gib, GPUs: a1},
			{ID: 2, Hostname: "a100-02", Pool: "bj-a100", Spec: "A100-80G", State: "lost", LastSeen: viewstest.T0.Add(-12 * time.Minute), MemTotalMiB: 640 * gib, GPUs: a2},
			{ID: 3, Hostname: "h800-01", Pool: "sh-h800", Spec: "H800-80G", State: "ready", LastSeen: viewstest.T0.Add(-2 * time.Second), MeanUtil: 61, MemUsedMiB: 240 * gib, MemTotalMiB: 320 * gib, GPUs: h1},
		},
		IdleAfter:      30 * time.Minute,
		SaturatedAfter: time.Hour,
	}
}

func TestBoardGolden(t *testing.T) {
	got := viewstest.Render(t, Board(viewstest.En, BoardBody(viewstest.En, boardFixture())))
	path := filepath.Join("..", "..", "testdata", "golden", "board.html")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./views/board -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Board page differs from %s (-want +got):\n%s\nrun go test ./views/board -update if the change is intended",
			path, cmp.Diff(string(want), string(got)))
	}
}

// uuids lists the data-uuid of the cards that hold a descendant matching sel.
func uuids(doc *goquery.Document, sel string) []string {
	var out []string
	doc.Find(`[data-testid="gpu-card"]`).Each(func(_ int, s *goquery.Selection) {
		if s.Find(sel).Length() > 0 || (strings.HasPrefix(sel, ".") && s.Is(sel)) {
			out = append(out, s.AttrOr("data-uuid", ""))
		}
	})
	return out
}

func TestBoardContent(t *testing.T) {
	doc := viewstest.Parse(t, viewstest.Render(t, Board(viewstest.En, BoardBody(viewstest.En, boardFixture()))))

	if got := doc.Find(`html`).AttrOr("lang", ""); got != "en" {
		t.Errorf(`<html lang> = %q, want "en"`, got)
	}
	if got := doc.Find(`title`).Text(); got != "Occupancy board · Kashi 卡时" {
		t.Errorf("<title> = %q", got)
	}
	counts := map[string]int{
		`[data-testid="board-grid"]`:      1,
		`[data-testid="pool-summary"]`:    2,
		`[data-testid="node-row"]`:        3,
		`[data-testid="gpu-card"]`:        20,
		`[data-testid="board-empty"]`:     0,
		`[data-testid="label-long-idle"]`: 2,
		`[data-testid="label-saturated"]`: 2,
		`.gpu.free`:                       9,
		`.gpu.stale`:                      1,
		`nav a[aria-current="page"]`:      1,
		`.langs a[aria-current="true"]`:   1,
	}
	for sel, want := range counts {
		if got := doc.Find(sel).Length(); got != want {
			t.Errorf("count of %s = %d, want %d", sel, got, want)
		}
	}

	for sel, want := range map[string][]string{
		`[data-testid="label-long-idle"]`: {"GPU-a100-01-3", "GPU-h800-01-3"},
		`.long-idle`:                      {"GPU-a100-01-3", "GPU-h800-01-3"},
		`[data-testid="label-saturated"]`: {"GPU-a100-01-4", "GPU-h800-01-3"},
		`.saturated`:                      {"GPU-a100-01-4", "GPU-h800-01-3"},
	} {
		if diff := cmp.Diff(want, uuids(doc, sel)); diff != "" {
			t.Errorf("cards with %s (-want +got):\n%s", sel, diff)
		}
	}

	card := func(uuid string) *goquery.Selection {
		return doc.Find(`[data-testid="gpu-card"][data-uuid="` + uuid + `"]`)
	}
	if got := strings.TrimSpace(card("GPU-a100-01-3").Find(`[data-testid="label-long-idle"]`).Text()); got != "Idle 2h 5m" {
		t.Errorf("long-idle label = %q, want %q", got, "Idle 2h 5m")
	}
	if got := strings.TrimSpace(card("GPU-a100-01-2").Find(".badge").Text()); got != "Idle 10m" {
		t.Errorf("short-idle badge = %q, want %q", got, "Idle 10m")
	}
	if got := strings.TrimSpace(card("GPU-a100-01-6").Find(".badge").Text()); got != "Free" {
		t.Errorf("free badge = %q, want %q", got, "Free")
	}
	if got := strings.TrimSpace(card("GPU-a100-01-7").Find(".badge").Text()); got != "No data" {
		t.Errorf("stale badge = %q, want %q", got, "No data")
	}
	if got := card("GPU-a100-01-0").AttrOr("title", ""); !strings.Contains(got, "GPU-a100-01-0") || !strings.Contains(got, "40 °C") || !strings.Contains(got, "90 W") {
		t.Errorf("card title = %q, want uuid, temperature and power", got)
	}
	if got := card("GPU-h800-01-0").Find(".task").Text(); got != "sft <chat> & tools" {
		t.Errorf("task name = %q, want it escaped and read back whole", got)
	}

	grid := doc.Find(`[data-testid="board-grid"]`)
	for attr, want := range map[string]string{
		"id":         "board-grid",
		"hx-get":     "/",
		"hx-trigger": "every 5s",
		"hx-include": "#board-filter",
		"hx-swap":    "outerHTML",
	} {
		if got := grid.AttrOr(attr, ""); got != want {
			t.Errorf("grid %s = %q, want %q", attr, got, want)
		}
	}
	if _, ok := grid.Attr("data-refresh"); !ok {
		t.Error("grid has no data-refresh: kashi.js would neither hold its poll in a hidden tab nor keep its focus")
	}
	if got := doc.Find(`[data-testid="node-row"][data-node="a100-02"] .seen`).Text(); got != "Last seen 12m ago" {
		t.Errorf("lost node = %q, want %q", got, "Last seen 12m ago")
	}
}

func TestBoardFilterSelected(t *testing.T) {
	d := boardFixture()
	d.Filter = BoardFilter{Pool: "sh-h800", Project: "gone-project"}
	doc := viewstest.Parse(t, viewstest.Render(t, Board(viewstest.En, BoardBody(viewstest.En, d))))
	for name, want := range map[string]string{"pool": "sh-h800", "spec": "", "project": "gone-project"} {
		sel := doc.Find(`#board-filter select[name="` + name + `"] option[selected]`)
		if sel.Length() != 1 || sel.AttrOr("value", "?") != want {
			t.Errorf("select %s: %d selected, value %q; want 1, %q", name, sel.Length(), sel.AttrOr("value", "?"), want)
		}
	}
	form := doc.Find(`form#board-filter`)
	if form.AttrOr("method", "") != "get" || form.AttrOr("action", "") != "/" || form.AttrOr("hx-target", "") != "#board-grid" {
		t.Errorf("filter form attributes wrong: %v", form.Nodes[0].Attr)
	}
}

func TestBoardZH(t *testing.T) {
	doc := viewstest.Parse(t, viewstest.Render(t, Board(viewstest.Zh, BoardBody(viewstest.Zh, boardFixture()))))
	if got := doc.Find(`html`).AttrOr("lang", ""); got != "zh-CN" {
		t.Errorf(`<html lang> = %q, want "zh-CN"`, got)
	}
	checks := map[string]string{
		`h1`: "占用看板",
		`[data-uuid="GPU-a100-01-3"] [data-testid="label-long-idle"]`: "闲置 2小时5分",
		`[data-uuid="GPU-a100-01-4"] [data-testid="label-saturated"]`: "满载",
		`[data-uuid="GPU-a100-01-7"] .badge`:                          "无数据",
		`[data-uuid="GPU-a100-01-6"] .badge`:                          "空闲",
		`nav a[aria-current="page"]`:                                  "占用看板",
		`[data-node="a100-02"] .seen`:                                 "最后上报 12分钟前",
	}
	for sel, want := range checks {
		if got := strings.TrimSpace(doc.Find(sel).First().Text()); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if body := doc.Find("body").Text(); strings.Contains(body, "Idle") || strings.Contains(body, "Free") {
		t.Errorf("zh-CN page still shows English words")
	}
}

func TestBoardEmpty(t *testing.T) {
	d := boardFixture()
	d.Nodes, d.Pools = nil, nil
	doc := viewstest.Parse(t, viewstest.Render(t, BoardGrid(viewstest.En, d)))
	if got := strings.TrimSpace(doc.Find(`[data-testid="board-empty"]`).Text()); got != viewstest.En.T("board.empty") {
		t.Errorf("empty state = %q", got)
	}
	d.Filter.Pool = "bj-a100"
	doc = viewstest.Parse(t, viewstest.Render(t, BoardGrid(viewstest.Zh, d)))
	if got := strings.TrimSpace(doc.Find(`[data-testid="board-empty"]`).Text()); got != "没有符合筛选条件的节点。" {
		t.Errorf("filtered empty state = %q", got)
	}
}

func TestBoardGridIsAPartial(t *testing.T) {
	html := viewstest.Render(t, BoardGrid(viewstest.En, boardFixture()))
	if bytes.Contains(html, []byte("<html")) || !bytes.HasPrefix(html, []byte(`<div id="board-grid"`)) {
		t.Errorf("BoardGrid should render only the grid div, got %.80q…", html)
	}
}

func TestErrorPage(t *testing.T) {
	doc := viewstest.Parse(t, viewstest.Render(t, views.ErrorPage(viewstest.Zh, 404, "没有这个任务")))
	if got := doc.Find("h1").Text(); got != "页面不存在" {
		t.Errorf("h1 = %q", got)
	}
	if got := doc.Find(`[data-testid="error-msg"]`).Text(); got != "没有这个任务" {
		t.Errorf("message = %q", got)
	}
	if got := doc.Find("title").Text(); got != "错误 404 · Kashi 卡时" {
		t.Errorf("title = %q", got)
	}
	if n := doc.Find(`nav a[aria-current]`).Length(); n != 0 {
		t.Errorf("error page marks %d nav entries current, want 0", n)
	}
	doc = viewstest.Parse(t, viewstest.Render(t, views.ErrorPage(viewstest.En, 418, "")))
	if got := doc.Find("h1").Text(); got != "Something went wrong" {
		t.Errorf("h1 of an unknown status = %q", got)
	}
}

// bigBoard is a fleet of nodes × 8 cards in a realistic mix of states.
func bigBoard(nodes int) BoardData {
	d := boardFixture()
	d.Nodes = make([]views.BoardNode, nodes)
	for n := range d.Nodes {
		host := "gpu-node-" + strconv.Itoa(n)
		gpus := make([]views.BoardGPU, 8)
		for i := range gpus {
			g := gpu(host, i)
			switch (n*8 + i) % 10 {
			case 0, 1:
				// free
			case 2:
				g = held(g, int64(n), "vision", "notebook", 0, 2*gib)
				g.IdleFor = 3 * time.Hour
			case 3:
				g = held(g, int64(n), "speech", "asr-finetune", 100, 79*gib)
				g.SaturatedFor = 2 * time.Hour
			default:
				g = held(g, int64(n), "llm-pretrain", "pretrain-70b", 60+i*4, int64(40+i)*gib)
			}
			gpus[i] = g
		}
		d.Nodes[n] = views.BoardNode{ID: int64(n), Hostname: host, Pool: "bj-a100", Spec: "A100-80G", State: "ready", LastSeen: viewstest.T0, MeanUtil: 55, MemUsedMiB: 400 * gib, MemTotalMiB: 640 * gib, GPUs: gpus}
	}
	return d
}

func BenchmarkBoardRender4096(b *testing.B) {
	d := bigBoard(512)
	ctx := context.Background()
	c := BoardGrid(viewstest.En, d)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Render(ctx, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/gpu")
}
