package board_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// cellStates lists "uuid state" of every compact cell of doc, in page order; a cell links to
// its GPU's page by id, which uuids maps back.
func cellStates(doc *goquery.Document, uuids map[string]string) []string {
	var out []string
	doc.Find(`[data-testid=gpu-cell]`).Each(func(_ int, c *goquery.Selection) {
		uuid := uuids[c.AttrOr("href", "")]
		out = append(out, uuid+" "+strings.TrimPrefix(strings.Fields(c.AttrOr("class", ""))[1], "c-"))
	})
	return out
}

// gpuPages maps the page of each GPU to its UUID, as GET /api/v1/gpus tells an admin.
func gpuPages(t *testing.T, s *webtest.Server) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, g := range webtest.Decode[[]api.GPU](t, s.Get("/api/v1/gpus")) {
		out["/gpus/"+webtest.IDStr(g.ID)] = g.UUID
	}
	return out
}

func TestCompactBoard(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	if err := s.Store.RollUp(context.Background(), webtest.T0, 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	w := s.Get("/?view=grid")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /?view=grid = %d %s", w.Code, w.Body)
	}
	doc := webtest.Parse(t, w.Body.String())
	want := []string{"GPU-a100-01-0 idle", "GPU-a100-01-1 idle", "GPU-a100-01-2 free", "GPU-a100-01-3 nodata",
		"GPU-a100-02-0 saturated", "GPU-a100-02-1 free", "GPU-a100-02-2 free", "GPU-a100-02-3 free",
		"GPU-h800-01-0 saturated", "GPU-h800-01-1 free"}
	pages := gpuPages(t, s)
	if diff := cmp.Diff(want, cellStates(doc, pages)); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	cell := doc.Find(`[data-testid=gpu-cell][href="/gpus/` + webtest.IDStr(s.GPUIDs("GPU-a100-01-1")[0]) + `"]`)
	if cell.Find("span").Text() != "alice" {
		t.Errorf("owner in the cell = %q, want alice", cell.Find("span").Text())
	}
	// The strip comes from the 5-minute rollups of the last hour: busy at 08:00, idle from
	// 08:50, nothing between.
	if st := cell.Find("i").AttrOr("style", ""); st != "background:linear-gradient(90deg,#1e3a8a 0 8.3%,#d1d5db 0 83.3%,#f59e0b 0 100.0%)" {
		t.Errorf("strip = %q", st)
	}
	if doc.Find(`[data-testid=view-grid][aria-current=true]`).Length() != 1 || doc.Find(`#board-filter input[name=view][value=grid]`).Length() != 1 {
		t.Errorf("the grid view is not marked current, or the filter does not keep it")
	}

	// Filters and sort stay in the URL and narrow the cells; HTMX gets the grid alone.
	for name, c := range map[string]struct {
		query string
		want  []string
	}{
		"state":          {"/?view=grid&state=saturated", []string{"GPU-a100-02-0 saturated", "GPU-h800-01-0 saturated"}},
		"owner and pool": {"/?view=grid&owner=alice&pool=h800", []string{"GPU-h800-01-0 saturated"}},
		"idle first": {"/?view=grid&sort=idle&pool=a100", []string{"GPU-a100-01-0 idle", "GPU-a100-01-1 idle", "GPU-a100-01-2 free",
			"GPU-a100-01-3 nodata", "GPU-a100-02-0 saturated", "GPU-a100-02-1 free", "GPU-a100-02-2 free", "GPU-a100-02-3 free"}},
		"idle first, free only": {"/?view=grid&sort=idle&state=free", []string{"GPU-a100-02-1 free", "GPU-a100-02-2 free",
			"GPU-a100-02-3 free", "GPU-a100-01-2 free", "GPU-h800-01-1 free"}},
	} {
		w := s.Get(c.query, "HX-Request", "true")
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "<html") {
			t.Errorf("%s: GET %s (HTMX) = %d, full page %v", name, c.query, w.Code, strings.Contains(w.Body.String(), "<html"))
			continue
		}
		if diff := cmp.Diff(c.want, cellStates(webtest.Parse(t, w.Body.String()), pages)); diff != "" {
			t.Errorf("%s: cells (-want +got):\n%s", name, diff)
		}
	}
	full := webtest.Parse(t, s.Get("/?view=grid&state=idle&owner=alice").Body.String())
	if got := full.Find(`[data-testid=view-cards]`).AttrOr("href", ""); got != "/?owner=alice&state=idle&view=cards" {
		t.Errorf("cards link = %q, want the filter kept", got)
	}
	if full.Find(`[data-testid=filter-state] option[value=idle][selected]`).Length() != 1 ||
		full.Find(`[data-testid=filter-owner] option[value=alice][selected]`).Length() != 1 {
		t.Errorf("the filter does not show the URL's state and owner")
	}
	// The card board takes the same filters.
	cards := webtest.Parse(t, s.Get("/?state=free&pool=a100").Body.String())
	if got := webtest.Attrs(cards, `[data-testid=gpu-card]`, "data-uuid"); !cmp.Equal(got, []string{"GPU-a100-01-2", "GPU-a100-02-1", "GPU-a100-02-2", "GPU-a100-02-3"}) {
		t.Errorf("cards with state=free = %v", got)
	}
	for _, bad := range []string{"/?view=table", "/?state=busy", "/?sort=owner"} {
		if w := s.Get(bad); w.Code != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", bad, w.Code)
		}
	}
}
