package board_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// TestBoardPages: a fleet of 4,800 cards (pool a100 of 512 nodes, a100-01 of 88) opens as the
// compact grid, a page per pool: all of a100, then a100-01; the legend counts every page.
// The cards view pages by 1,024 cards; a page past the last shows the last; a page that is
// not a number from 1 is a 400 naming it.
func TestBoardPages(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.SeedFleet(t, s.Store, 600, webtest.T0)

	doc := webtest.Parse(t, s.Get("/").Body.String())
	if doc.Find(`[data-testid=compact-board]`).Length() != 1 {
		t.Fatalf("GET / of 4,800 cards is not the compact grid")
	}
	pages := func(path string) (names []string, current string, cells int) {
		doc := webtest.Parse(t, s.Get(path, "HX-Request", "true").Body.String())
		doc.Find(`[data-testid=board-page]`).Each(func(_ int, a *goquery.Selection) { names = append(names, a.Text()) })
		current = doc.Find(`[data-testid=board-page][aria-current=page]`).Text()
		return names, current, doc.Find(`[data-testid=gpu-cell]`).Length()
	}
	names, cur, cells := pages("/?view=grid")
	if diff := cmp.Diff([]string{"a100 · 4,096 cards", "a100-01 · 704 cards"}, names); diff != "" || cur != names[0] || cells != 4096 {
		t.Errorf("grid pages (-want +got):\n%s\ncurrent %q, %d cells", diff, cur, cells)
	}
	if _, cur, cells := pages("/?view=grid&page=2"); cur != "a100-01 · 704 cards" || cells != 704 {
		t.Errorf("grid page 2: current %q, %d cells; want a100-01 and 704", cur, cells)
	}
	if _, cur, cells := pages("/?view=grid&page=9"); cur != "a100-01 · 704 cards" || cells != 704 {
		t.Errorf("grid page 9 of 2: current %q, %d cells; want the last", cur, cells)
	}
	legend := webtest.Parse(t, s.Get("/?view=grid&page=2", "HX-Request", "true").Body.String())
	if got := legend.Find(`[data-testid=legend-state][data-state=free] b`).Text(); got != "1,800" {
		t.Errorf("legend's free cards on page 2 = %q, want 1,800 (3 of 8 on 600 nodes)", got)
	}
	names, _, _ = pages("/?view=cards")
	cards := webtest.Parse(t, s.Get("/?view=cards&page=5", "HX-Request", "true").Body.String())
	if len(names) != 5 || names[4] != "a100-01 · 704 cards" || cards.Find(`[data-testid=gpu-card]`).Length() != 704 {
		t.Errorf("card pages = %q with %d cards on the last; want 5, the last a100-01's 704", names, cards.Find(`[data-testid=gpu-card]`).Length())
	}
	for _, bad := range []string{"/?page=0", "/?page=x", "/?page=10001"} {
		if w := s.Get(bad); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "page must be a whole number") {
			t.Errorf("GET %s = %d, want 400 naming page", bad, w.Code)
		}
	}
}
