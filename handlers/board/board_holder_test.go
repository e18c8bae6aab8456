package board_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// TestBoardCardHolder: a held card names its task (linked to the task's page), who submitted
// it and how long it has been held; every card shows temperature and power without a hover.
func TestBoardCardHolder(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	tk := s.Create(webtest.Task("train-7b").Ready(), webtest.T0.Add(-3*time.Hour))
	s.Place(tk, webtest.T0.Add(-2*time.Hour), webtest.UUIDOf("n1", 0))
	doc := webtest.Parse(t, s.Get("/").Body.String())
	card := doc.Find(`[data-testid=gpu-card][data-uuid="` + webtest.UUIDOf("n1", 0) + `"]`)
	got := map[string]string{
		"task":  card.Find(`[data-testid=card-task]`).Text(),
		"href":  card.Find(`[data-testid=card-task]`).AttrOr("href", ""),
		"owner": card.Find(`[data-testid=card-owner]`).Text(),
		"since": card.Find(`[data-testid=card-since]`).Text(),
	}
	want := map[string]string{"task": "train-7b", "href": "/tasks/" + strconv.FormatInt(tk.ID, 10), "owner": "alice", "since": "held 2h"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("held card (-want +got):\n%s", diff)
	}
	if n := doc.Find(`[data-testid=card-env]`).Length(); n != 2 {
		t.Errorf("cards showing temperature and power = %d, want 2", n)
	}
	if n := doc.Find(`[data-testid=gpu-card][data-uuid="` + webtest.UUIDOf("n1", 1) + `"] [data-testid=card-owner]`).Length(); n != 0 {
		t.Errorf("a free card names an owner")
	}
}
