// A reservation booked through the API, for the bookings tests of the board, the pools and the browser.

package webtest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kashi/models"
)

// Book has li approve mia's reservation of gpus A100 cards for vision from opens to closes.
func (s *Server) Book(t *testing.T, gpus int, opens, closes time.Time) {
	t.Helper()
	ctx := context.Background()
	vision, err := s.Store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 16,
		BudgetCardHours: 1000, StartsAt: T0.AddDate(0, 0, -1), EndsAt: T0.AddDate(0, 1, 0)}, T0); err != nil {
		t.Fatal(err)
	}
	mia, li := s.Member("mia", "vision"), s.MemberAs("li", "vision", models.ProjectRoleLead)
	w := s.Post("/api/v1/requests", MustJSON(t, map[string]any{"project": "vision", "spec": "A100-80G", "kind": "reservation",
		"change": map[string]any{"reserve_gpus": gpus, "reserve_begins": opens, "reserve_ends": closes}, "reason": "delivery week"}), Bearer(mia)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests = %d %s", w.Code, w.Body)
	}
	id := Decode[struct{ ID int64 }](t, w).ID
	if w := s.Post(fmt.Sprintf("/api/v1/requests/%d/approve", id), `{"comment":"ok"}`, Bearer(li)...); w.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", w.Code, w.Body)
	}
}
