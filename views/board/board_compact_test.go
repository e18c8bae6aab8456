package board

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"kashi/api"
	"kashi/views"
	"kashi/views/viewstest"
)

func TestCompactState(t *testing.T) {
	base := held(gpu("n", 0), 1, "p", "t", 80, gib)
	for name, c := range map[string]struct {
		g    views.BoardGPU
		want string
	}{
		"active":              {base, CompactActive},
		"low":                 {held(gpu("n", 0), 1, "p", "t", 25, gib), CompactLow},
		"idle":                {idleFor(base, time.Minute), CompactIdle},
		"free":                {gpu("n", 0), CompactFree},
		"booked when free":    {func() views.BoardGPU { g := gpu("n", 0); g.BookedBy = 1; return g }(), CompactBooked},
		"saturated":           {saturatedFor(base, 2*time.Hour), CompactSaturated},
		"saturated not yet":   {saturatedFor(base, time.Minute), CompactActive},
		"unmanaged over free": {func() views.BoardGPU { g := gpu("n", 0); g.UnmanagedMiB = 500; return g }(), CompactUnmanaged},
		"no data over all":    {func() views.BoardGPU { g := saturatedFor(base, 2*time.Hour); g.State = api.GPUStale; return g }(), CompactNoData},
	} {
		if got := CompactState(&c.g, 40); got != c.want {
			t.Errorf("%s: CompactState = %q, want %q", name, got, c.want)
		}
	}
}

func TestAppendStrip(t *testing.T) {
	for name, c := range map[string]struct {
		st   [12]uint8
		want string
	}{
		"no data":  {[12]uint8{}, "background:#d1d5db"},
		"all busy": {[12]uint8{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, "background:#1e3a8a"},
		"runs": {[12]uint8{0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3},
			"background:linear-gradient(90deg,#d1d5db 0 16.7%,#f59e0b 0 50.0%,#93c5fd 0 75.0%,#1e3a8a 0 100.0%)"},
	} {
		if got := string(appendStrip(nil, &c.st)); got != c.want {
			t.Errorf("%s: appendStrip = %q, want %q", name, got, c.want)
		}
	}
}

func TestCompactGrid(t *testing.T) {
	d := boardFixture()
	d.Filter.View, d.ActivePct = ViewGrid, 40
	d.Nodes[0].GPUs[0].Strip = [12]uint8{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1}
	d.Nodes[0].GPUs[0].Owner = "zhang<x>"
	d.Counts = countStates(d)
	doc := viewstest.Parse(t, viewstest.Render(t, CompactGrid(viewstest.En, d)))
	cells := doc.Find(`[data-testid=compact-grid] [data-testid=gpu-cell]`)
	if cells.Length() != 20 {
		t.Fatalf("cells = %d, want 20", cells.Length())
	}
	first := cells.First()
	if href := first.AttrOr("href", ""); href != "/gpus/1" || cells.Eq(1).AttrOr("href", "") != views.GPUURL(2) {
		t.Errorf("cell links = %q, %q, want the GPUs' pages by id", href, cells.Eq(1).AttrOr("href", ""))
	}
	if first.Find("span").Text() != "zhang<x>" || !strings.Contains(first.AttrOr("class", ""), "c-active") {
		t.Errorf("first cell = %q class %q, want the owner and active", first.Find("span").Text(), first.AttrOr("class", ""))
	}
	if st := first.Find("i").AttrOr("style", ""); !strings.Contains(st, "#1e3a8a 0 83.3%,#f59e0b 0 100.0%") {
		t.Errorf("strip = %q", st)
	}
	title := first.AttrOr("title", "")
	for _, want := range []string{"a100-01 GPU 0", "Active", "Task #101 pretrain-7b", "llm-pretrain", "Owner zhang<x>"} {
		if !strings.Contains(title, want) {
			t.Errorf("cell title %q lacks %q", title, want)
		}
	}
	var states []string
	doc.Find(`[data-node=a100-01] [data-testid=gpu-cell]`).Each(func(_ int, s *goquery.Selection) {
		states = append(states, strings.TrimPrefix(strings.Fields(s.AttrOr("class", ""))[1], "c-"))
	})
	want := "active active idle idle saturated active free nodata"
	if got := strings.Join(states, " "); got != want {
		t.Errorf("a100-01 states = %q, want %q", got, want)
	}
	if href := doc.Find(`[data-node=a100-02] .cnh`).AttrOr("href", ""); href != "/nodes/2" {
		t.Errorf("node link = %q", href)
	}
	counts := map[string]string{}
	doc.Find(`[data-testid=legend-state]`).Each(func(_ int, s *goquery.Selection) { counts[s.AttrOr("data-state", "")] = s.Find("b").Text() })
	if counts["free"] != "9" || counts["nodata"] != "1" || counts["saturated"] != "2" {
		t.Errorf("legend counts = %v", counts)
	}
}

// countStates counts d's cards by compact state, as the handler counts a selection's.
func countStates(d BoardData) map[string]int {
	n := map[string]int{}
	for i := range d.Nodes {
		for j := range d.Nodes[i].GPUs {
			n[CompactState(&d.Nodes[i].GPUs[j], d.ActivePct)]++
		}
	}
	return n
}

// The compact grid's cells are sized to the fleet: 4,096 GPUs keep the smallest cells, on one
// desktop screen; fewer GPUs get larger cells, never smaller for fewer nodes, up to the
// largest; the grid carries the size.
func TestCompactCellWidth(t *testing.T) {
	prev := 0
	for _, nodes := range []int{512, 256, 128, 64, 17, 8, 1} {
		d := bigBoard(nodes)
		w := compactCellWidth(d)
		switch {
		case nodes == 512 && w != compactMinCell:
			t.Errorf("%d nodes of 8: cells %d px, want the smallest, %d", nodes, w, compactMinCell)
		case nodes == 17 && w < 48:
			t.Errorf("17 nodes of 8 (the demo's): cells %d px, want 48 or more, to read owners' names", w)
		case nodes == 1 && w != compactMaxCell:
			t.Errorf("one node: cells %d px, want the largest, %d", w, compactMaxCell)
		case w < prev:
			t.Errorf("%d nodes: cells %d px, smaller than %d px for more nodes", nodes, w, prev)
		}
		prev = w
	}
	d := bigBoard(17)
	d.Filter.View = ViewGrid
	doc := viewstest.Parse(t, viewstest.Render(t, CompactGrid(viewstest.En, d)))
	if got, want := doc.Find(`[data-testid=compact-grid]`).AttrOr("style", ""), "--cw:"+strconv.Itoa(compactCellWidth(d))+"px;"; got != want {
		t.Errorf("grid style = %q, want %q", got, want)
	}
}

func BenchmarkCompactBoardRender4096(b *testing.B) {
	d := bigBoard(512)
	d.Filter.View, d.ActivePct = ViewGrid, 40
	for n := range d.Nodes {
		for i := range d.Nodes[n].GPUs {
			g := &d.Nodes[n].GPUs[i]
			g.Owner = "user" + strconv.Itoa(n%37)
			for k := range g.Strip {
				g.Strip[k] = uint8((n + i + k/4) % 4)
			}
		}
	}
	ctx := context.Background()
	c := CompactGrid(viewstest.En, d)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Render(ctx, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/gpu")
}

// TestCardsLinkToPages: every card of the card board links to its GPU's page and every node
// row to its node's page, as the compact cells do.
func TestCardsLinkToPages(t *testing.T) {
	doc := viewstest.Parse(t, viewstest.Render(t, BoardGrid(viewstest.En, boardFixture())))
	cards := doc.Find(`[data-testid=gpu-card]`)
	cards.Each(func(_ int, c *goquery.Selection) {
		if href := c.Find(`[data-testid=card-gpu]`).AttrOr("href", ""); href != "/gpus/"+c.AttrOr("data-gpu", "?") {
			t.Errorf("card %s links to %q", c.AttrOr("data-gpu", ""), href)
		}
	})
	if cards.Length() != 20 {
		t.Errorf("cards = %d, want 20", cards.Length())
	}
	if href := doc.Find(`[data-node=h800-01] .host a`).AttrOr("href", ""); href != "/nodes/3" {
		t.Errorf("node link = %q, want /nodes/3", href)
	}
}

// TestCardsWithoutUUIDs: a board of cards without UUIDs (anyone but an admin sees such) shows
// none, in neither view: no data-uuid, no title, no link.
func TestCardsWithoutUUIDs(t *testing.T) {
	d := boardFixture()
	for n := range d.Nodes {
		for g := range d.Nodes[n].GPUs {
			d.Nodes[n].GPUs[g].UUID = ""
		}
	}
	for name, c := range map[string]templ.Component{"cards": BoardGrid(viewstest.En, d), "grid": CompactGrid(viewstest.En, d)} {
		html := viewstest.Render(t, c)
		if bytes.Contains(html, []byte("GPU-")) || bytes.Contains(html, []byte("data-uuid")) {
			t.Errorf("%s of cards without UUIDs shows one", name)
		}
		if n := viewstest.Parse(t, html).Find(`a[href^="/gpus/"]`).Length(); n != 20 {
			t.Errorf("%s links %d cards to their pages, want 20", name, n)
		}
	}
}
