package board_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// historyServer is boardFleet with a reading of GPU-a100-01-1 every minute of the last two
// hours (busy, then idle for the last 20 minutes), rolled up.
func historyServer(t *testing.T, s *webtest.Server) map[string]webtest.Registered {
	t.Helper()
	nodes := boardFleet(s)
	var ss []api.Sample
	for m := 120; m >= 2; m-- {
		util := 90
		if m <= 20 {
			util = 1
		}
		ss = append(ss, webtest.Sample("GPU-a100-01-1", webtest.T0.Add(-time.Duration(m)*time.Minute+30*time.Second), util, 60000))
	}
	s.PostSamples(nodes["a100-01"].Token, ss...)
	if err := s.Store.RollUp(context.Background(), webtest.T0, 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	return nodes
}

func TestGPUPage(t *testing.T) {
	s := webtest.NewServer(t)
	nodes := historyServer(t, s)
	w := s.Get("/gpus/GPU-a100-01-1?range=24h")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /gpus/GPU-a100-01-1 = %d %s", w.Code, w.Body)
	}
	doc := webtest.Parse(t, w.Body.String())
	charts := doc.Find(`[data-testid=history-chart]`)
	if charts.Length() != 4 {
		t.Fatalf("charts = %d, want utilization, memory, temperature and power", charts.Length())
	}
	charts.Each(func(_ int, c *goquery.Selection) {
		if d := c.Find(`[data-testid=history-line]`).AttrOr("d", ""); strings.Count(d, "L") < 20 {
			t.Errorf("%s chart line = %q, want about two hours of 5-minute points", c.AttrOr("data-metric", ""), d)
		}
	})
	if href := doc.Find(`[data-testid=gpu-node]`).AttrOr("href", ""); href != "/nodes/"+strconv.FormatInt(nodes["a100-01"].ID, 10) {
		t.Errorf("node link = %q", href)
	}
	holds := doc.Find(`[data-testid=hold]`)
	if holds.Length() != 1 || holds.Find(`[data-testid=task-link]`).AttrOr("href", "") != "/tasks/1" || !strings.Contains(holds.Text(), "still held") {
		t.Errorf("holds = %d %q", holds.Length(), strings.Join(strings.Fields(holds.Text()), " "))
	}
	if got := doc.Find(`[data-testid=gpu-state]`).Text(); got != "Idle (held)" {
		t.Errorf("state now = %q", got)
	}
	// The last hour: twelve 5-minute points.
	one := webtest.Parse(t, s.Get("/gpus/GPU-a100-01-1?range=1h").Body.String())
	if d := one.Find(`[data-metric=util] [data-testid=history-line]`).AttrOr("d", ""); strings.Count(d, "L") != 11 {
		t.Errorf("1h utilization line = %q, want 12 points", d)
	}
	// A card without rollups says so; zh renders the page in Chinese.
	empty := webtest.Parse(t, s.Get("/gpus/GPU-a100-01-3", "Accept-Language", "zh-CN").Body.String())
	if got := empty.Find(`[data-metric=util] .chart-empty`).Text(); got != "此时间范围内还没有汇总数据。" {
		t.Errorf("empty chart (zh) = %q", got)
	}
	for path, code := range map[string]int{
		"/gpus/GPU-a100-01-1?range=2y":  http.StatusBadRequest,
		"/gpus/GPU-a100-01-1?range=-1h": http.StatusBadRequest,
		"/gpus/GPU-nope":                http.StatusNotFound,
		"/nodes/x":                      http.StatusBadRequest,
		"/nodes/0":                      http.StatusBadRequest,
		"/nodes/99999":                  http.StatusNotFound,
		"/nodes/1?range=week":           http.StatusBadRequest,
	} {
		if w := s.Get(path); w.Code != code {
			t.Errorf("GET %s = %d, want %d", path, w.Code, code)
		}
	}
}

func TestNodePage(t *testing.T) { webtest.ForEachDB(t, testNodePage) }

func testNodePage(t *testing.T, s *webtest.Server) {
	nodes := historyServer(t, s)
	id := strconv.FormatInt(nodes["a100-01"].ID, 10)
	w := s.Get("/nodes/" + id + "?range=7d")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /nodes/%s = %d %s", id, w.Code, w.Body)
	}
	doc := webtest.Parse(t, w.Body.String())
	var want []string
	for _, id := range s.GPUIDs("GPU-a100-01-0", "GPU-a100-01-1", "GPU-a100-01-2", "GPU-a100-01-3") {
		want = append(want, "/gpus/"+strconv.FormatInt(id, 10))
	}
	if got := webtest.Attrs(doc, `[data-testid=node-gpu-link]`, "href"); !cmp.Equal(got, want) {
		t.Errorf("GPU links = %v, want %v", got, want)
	}
	// Hourly rollups: the last two hours (the current one not yet rolled up).
	if d := doc.Find(`[data-metric=util] [data-testid=history-line]`).AttrOr("d", ""); !strings.HasPrefix(d, "M") || strings.Count(d, "L") < 1 {
		t.Errorf("7d utilization line = %q", d)
	}
	holds := doc.Find(`[data-testid=hold]`)
	if holds.Length() != 1 || !strings.Contains(holds.Text(), "resnet-sweep") || strings.TrimSpace(holds.Find("td.num").Text()) != "2" {
		t.Errorf("holds = %q, want resnet-sweep on 2 cards", strings.Join(strings.Fields(holds.Text()), " "))
	}
	// Every compact cell links to its GPU's page, and every page it links to exists.
	grid := webtest.Parse(t, s.Get("/?view=grid").Body.String())
	grid.Find(`[data-testid=gpu-cell]`).Each(func(_ int, c *goquery.Selection) {
		if w := s.Get(c.AttrOr("href", "")); w.Code != http.StatusOK {
			t.Errorf("GET %s = %d", c.AttrOr("href", ""), w.Code)
		}
	})
}
