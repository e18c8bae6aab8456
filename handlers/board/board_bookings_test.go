package board_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestBoardMarksBookedCards: from the lead time before a window the board lists the
// reservation and marks free cards of its spec as held for it, with the project and window;
// in the window the project's own cards count against it and fewer free ones are marked.
func TestBoardMarksBookedCards(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	if _, err := s.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	s.Projects("vision", "nlp")
	n := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	opens, closes := webtest.T0.Add(24*time.Hour), webtest.T0.Add(33*time.Hour)
	s.Book(t, 4, opens, closes)
	seen := func(at time.Time) {
		s.SetNow(at)
		var ss []api.Sample
		for _, u := range n.UUIDs {
			ss = append(ss, webtest.Sample(u, at, 0, 0))
		}
		s.PostSamples(n.Token, ss...)
	}

	seen(opens.Add(-time.Hour)) // before the lead time (15 minutes): nothing held
	if doc := webtest.Parse(t, s.Get("/").Body.String()); doc.Find(`[data-testid=board-booking]`).Length() != 0 || doc.Find(`[data-testid=card-booked]`).Length() != 0 {
		t.Errorf("an hour before the window the board shows a booking")
	}

	seen(opens.Add(-10 * time.Minute))
	doc := webtest.Parse(t, s.Get("/").Body.String())
	if got := doc.Find(`[data-testid=board-booking][data-project=vision]`).Text(); !strings.Contains(got, "4 × A100-80G") || !strings.Contains(got, "03-03 09:00–18:00") {
		t.Errorf("the board's booking reads %q, want vision's 4 × A100-80G 03-03 09:00–18:00", got)
	}
	marked := doc.Find(`[data-testid=card-booked]`)
	if marked.Length() != 4 || !strings.Contains(marked.First().Text(), "vision") || !strings.Contains(marked.First().AttrOr("title", ""), "03-03 09:00–18:00") {
		t.Errorf("%d cards marked (%q, %q), want 4 held for vision's window", marked.Length(), marked.First().Text(), marked.First().AttrOr("title", ""))
	}

	// The compact grid marks the same cards, with the booking's project and window, and
	// counts them in its legend; the state filter keeps only them.
	grid := webtest.Parse(t, s.Get("/?view=grid").Body.String())
	cells := grid.Find(`[data-testid=gpu-cell].c-booked`)
	if cells.Length() != 4 || cells.First().Find("span").Text() != "vision" || !strings.Contains(cells.First().AttrOr("title", ""), "Held for vision's reservation 03-03 09:00–18:00") {
		t.Errorf("grid: %d booked cells (%q, %q), want 4 held for vision's window", cells.Length(), cells.First().Find("span").Text(), cells.First().AttrOr("title", ""))
	}
	if got := grid.Find(`[data-testid=legend-state][data-state=booked]`).Text(); !strings.Contains(got, "Held for a booking 4") {
		t.Errorf("grid legend reads %q, want 4 held for a booking", got)
	}
	if n := webtest.Parse(t, s.Get("/?view=grid&state=booked").Body.String()).Find(`[data-testid=gpu-cell]`).Length(); n != 4 {
		t.Errorf("grid filtered to booked cards shows %d cells, want 4", n)
	}

	tk := s.Create(webtest.Task("peak").Spec("A100-80G").Ready().GPUs(3), opens)
	s.Place(tk, opens, n.UUIDs[:3]...)
	seen(opens.Add(time.Hour))
	doc = webtest.Parse(t, s.Get("/").Body.String())
	if n := doc.Find(`[data-testid=card-booked]`).Length(); n != 1 {
		t.Errorf("in the window with 3 of 4 cards used, %d free cards marked, want 1", n)
	}
	if got := doc.Find(`[data-testid=board-booking]`).Text(); !strings.Contains(got, "in use 3 · free cards held 1") {
		t.Errorf("the booking reads %q, want in use 3, 1 free card held", got)
	}
	seen(closes.Add(time.Minute))
	if n := webtest.Parse(t, s.Get("/").Body.String()).Find(`[data-testid=card-booked]`).Length(); n != 0 {
		t.Errorf("after the window %d cards marked", n)
	}
}

// A daily reservation's window on the board says which of its series it is.
func TestBoardBookingOccurrence(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	if _, err := s.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	s.Projects("vision")
	n := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 16,
		BudgetCardHours: 1000, StartsAt: webtest.T0.AddDate(0, 0, -1), EndsAt: webtest.T0.AddDate(0, 1, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	mia, li := s.Member("mia", "vision"), s.MemberAs("li", "vision", models.ProjectRoleLead)
	opens := webtest.T0.Add(24 * time.Hour)
	w := s.Post("/api/v1/requests", webtest.MustJSON(t, map[string]any{"project": "vision", "spec": "A100-80G", "kind": "reservation",
		"change": map[string]any{"reserve_gpus": 2, "reserve_begins": opens, "reserve_ends": opens.Add(9 * time.Hour),
			"reserve_repeat": "daily", "reserve_until": opens.Add(48 * time.Hour)}, "reason": "standups"}), webtest.Bearer(mia)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests = %d %s", w.Code, w.Body)
	}
	id := webtest.Decode[struct{ ID int64 }](t, w).ID
	if w := s.Post(fmt.Sprintf("/api/v1/requests/%d/approve", id), `{}`, webtest.Bearer(li)...); w.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", w.Code, w.Body)
	}
	at := opens.Add(24*time.Hour - 10*time.Minute) // in the second window's lead time
	s.SetNow(at)
	s.PostSamples(n.Token, webtest.Sample(n.UUIDs[0], at, 0, 0))
	for lang, want := range map[string]string{"en": "window 2 of 3", "zh-CN": "第 2/3 个时段"} {
		doc := webtest.Parse(t, s.Get("/", "Accept-Language", lang).Body.String())
		if got := doc.Find(`[data-testid=booking-occurrence]`).Text(); got != want {
			t.Errorf("%s: the board's booking says %q, want %q", lang, got, want)
		}
	}
}
