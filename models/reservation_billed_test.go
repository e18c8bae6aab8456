package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// Bills charge a reservation's window up to its cancellation: one cancelled midway ends
// there, one cancelled before it began is not billed.
func TestBilledReservationsCutAtCancel(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		begins, ends := t0.Add(24*time.Hour), t0.Add(33*time.Hour)
		c := models.QuotaChange{ReserveGPUs: 4, ReserveBegins: &begins, ReserveEnds: &ends, ReserveWeeks: 2}
		req, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation, c, "delivery week", t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, req.ID, true, "", t0); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Reservations(ctx, t0, t0.Add(30*24*time.Hour))
		if err != nil || len(rs) != 3 {
			t.Fatalf("Reservations = %+v, %v", rs, err)
		}
		midway := begins.Add(3 * time.Hour)
		if _, err := s.CancelReservation(ctx, w.lead, rs[0].ID, midway); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CancelReservation(ctx, w.lead, rs[1].ID, midway); err != nil {
			t.Fatal(err)
		}
		got, err := s.BilledReservations(ctx, t0, t0.Add(30*24*time.Hour))
		if err != nil {
			t.Fatalf("BilledReservations = %v", err)
		}
		if len(got) != 2 || got[0].ID != rs[0].ID || !got[0].EndsAt.Equal(midway) || got[1].ID != rs[2].ID ||
			!got[1].EndsAt.Equal(rs[2].EndsAt) || got[1].GPUs != 4 {
			t.Errorf("BilledReservations = %+v; want the first cut at %v and the third whole", got, midway)
		}
		if got, _ := s.BilledReservations(ctx, midway, begins.Add(24*time.Hour)); len(got) != 0 {
			t.Errorf("from the cancellation on: %+v, want none", got)
		}
	})
}
