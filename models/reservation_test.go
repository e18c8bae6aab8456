package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// A reservation request goes through the quota approval flow; approving it books one window
// a week, and a lead may cancel one before it ends.
func TestReservationRequestBooksWindows(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		begins, ends := t0.Add(24*time.Hour), t0.Add(33*time.Hour) // tomorrow 09:00–18:00
		c := models.QuotaChange{ReserveGPUs: 4, ReserveBegins: &begins, ReserveEnds: &ends, ReserveWeeks: 1}
		if got := c.ReservedCardSeconds(); got != 2*4*9*3600 {
			t.Errorf("ReservedCardSeconds = %d, want %d", got, 2*4*9*3600)
		}
		req, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation, c, "delivery week", t0)
		if err != nil {
			t.Fatalf("CreateQuotaRequest = %v", err)
		}
		if rs, _ := s.Reservations(ctx, t0, t0.Add(30*24*time.Hour)); len(rs) != 0 {
			t.Errorf("a pending request booked %+v", rs)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.member, req.ID, true, "", t0); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("deciding one's own reservation = %v, want ErrForbidden", err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, req.ID, true, "ok", t0.Add(time.Hour)); err != nil {
			t.Fatalf("DecideQuotaRequest = %v", err)
		}
		rs, err := s.Reservations(ctx, t0, t0.Add(30*24*time.Hour))
		if err != nil || len(rs) != 2 {
			t.Fatalf("Reservations = %+v, %v; want two windows", rs, err)
		}
		week := 7 * 24 * time.Hour
		if !rs[0].StartsAt.Equal(begins) || !rs[1].EndsAt.Equal(ends.Add(week)) || rs[0].GPUs != 4 || rs[0].Project != "vision" || rs[0].Spec != "A100-80G" {
			t.Errorf("booked %+v", rs)
		}
		if qs, _ := s.Quotas(ctx, w.project.ID); qs[0].MaxGPUs != 8 {
			t.Errorf("the quota changed: %+v", qs[0])
		}
		if _, err := s.CancelReservation(ctx, w.lead, rs[1].ID, t0.Add(2*time.Hour)); err != nil {
			t.Fatalf("CancelReservation = %v", err)
		}
		if _, err := s.CancelReservation(ctx, w.lead, rs[1].ID, t0.Add(2*time.Hour)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("a second cancel = %v, want ErrConflict", err)
		}
		if _, err := s.CancelReservation(ctx, w.lead, rs[0].ID, ends); !errors.Is(err, models.ErrConflict) {
			t.Errorf("cancelling an ended window = %v, want ErrConflict", err)
		}
		if rs, _ := s.Reservations(ctx, t0, t0.Add(30*24*time.Hour)); len(rs) != 1 || rs[0].State() != models.ReservationApproved {
			t.Errorf("after cancel: %+v", rs)
		}
	})
}

func TestReservationRequestRejectsBadInput(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	w := newQuotaWorld(t, s)
	at := func(h int) *time.Time { x := t0.Add(time.Duration(h) * time.Hour); return &x }
	tests := map[string]struct {
		change models.QuotaChange
		field  string
	}{
		"no cards":        {models.QuotaChange{ReserveBegins: at(10), ReserveEnds: at(12)}, "reserve_gpus"},
		"over the limit":  {models.QuotaChange{ReserveGPUs: 9, ReserveBegins: at(10), ReserveEnds: at(12)}, "reserve_gpus"},
		"no begin":        {models.QuotaChange{ReserveGPUs: 2, ReserveEnds: at(12)}, "reserve_begins"},
		"reversed":        {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(12), ReserveEnds: at(10)}, "reserve_ends"},
		"in the past":     {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(-2), ReserveEnds: at(10)}, "reserve_begins"},
		"too long":        {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(1 + 32*24)}, "reserve_ends"},
		"too many weeks":  {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveWeeks: 27}, "reserve_weeks"},
		"weekly too long": {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(1 + 8*24), ReserveWeeks: 1}, "reserve_ends"},
		"two repeats":     {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveWeeks: 1, ReserveRepeat: "daily", ReserveUntil: at(100)}, "reserve_weeks"},
		"unknown repeat":  {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "hourly", ReserveUntil: at(100)}, "reserve_repeat"},
		"until alone":     {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveUntil: at(100)}, "reserve_repeat"},
		"no until":        {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "daily"}, "reserve_until"},
		"until too far":   {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "daily", ReserveUntil: at(2 + 26*7*24)}, "reserve_until"},
		"daily overlaps":  {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(30), ReserveRepeat: "daily", ReserveUntil: at(100)}, "reserve_ends"},
		"bad weekday":     {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "weekly", ReserveWeekdays: []string{"funday"}, ReserveUntil: at(100)}, "reserve_weekdays"},
		"daily weekdays":  {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "daily", ReserveWeekdays: []string{"mon"}, ReserveUntil: at(100)}, "reserve_weekdays"},
		"no window":       {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "weekly", ReserveWeekdays: []string{"fri"}, ReserveUntil: at(30)}, "reserve_weekdays"},
		"unknown zone":    {models.QuotaChange{ReserveGPUs: 2, ReserveBegins: at(1), ReserveEnds: at(2), ReserveRepeat: "daily", ReserveUntil: at(100), ReserveZone: "Mars/Base"}, "reserve_zone"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation, tc.change, "r", t0)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("CreateQuotaRequest = %v, want a FieldError on %q", err, tc.field)
			}
		})
	}
}
