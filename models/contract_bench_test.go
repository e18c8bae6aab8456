package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
)

// ceilingsWorld is benchFleet (4,096 A100s) with 200 projects, each a quota guaranteeing 4
// cards, and 1,000 booked windows of 8 cards over the next 30 days: what the approvals page
// and the request form read (Store.Ceilings), and an approval checks against.
func ceilingsWorld(b *testing.B) *models.Store {
	s := benchFleet(b)
	ctx := context.Background()
	var rows []models.Reservation
	for i := range 200 {
		p, err := s.EnsureProject(ctx, fmt.Sprintf("p%03d", i), t0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 64, GuaranteedGPUs: 4,
			BudgetCardHours: 1000, StartsAt: t0, EndsAt: t0.AddDate(0, 3, 0)}, t0); err != nil {
			b.Fatal(err)
		}
		for k := range 5 {
			at := t0.Add(time.Duration(i*5+k) * 43 * time.Minute)
			rows = append(rows, models.Reservation{ProjectID: p.ID, RequestID: int64(i + 1), Spec: "A100-80G", GPUs: 8,
				StartsAt: at, EndsAt: at.Add(9 * time.Hour), CreatedAt: t0})
		}
	}
	if err := models.InsertReservations(ctx, s, rows); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkCeilings measures reading the ceilings: the pools' reach from 4,096 GPUs, 200
// guarantees and 1,000 booked windows, once per approvals page, request form and approval.
func BenchmarkCeilings(b *testing.B) {
	s := ceilingsWorld(b)
	b.ResetTimer()
	for range b.N {
		if _, err := s.Ceilings(context.Background(), t0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBookingRoom measures checking a daily reservation of 183 windows (the most a
// request books) against those 1,000 windows, as its approval does.
func BenchmarkBookingRoom(b *testing.B) {
	s := ceilingsWorld(b)
	cs, err := s.Ceilings(context.Background(), t0)
	if err != nil {
		b.Fatal(err)
	}
	begins, ends := t0.Add(time.Hour), t0.Add(10*time.Hour)
	until := begins.AddDate(0, 0, 182)
	c := models.QuotaChange{ReserveGPUs: 8, ReserveBegins: &begins, ReserveEnds: &ends, ReserveRepeat: models.RepeatDaily,
		ReserveUntil: &until, ReserveZone: "UTC"}
	q := models.Quota{ProjectID: 1, Spec: "A100-80G", MaxGPUs: 64}
	if n := len(c.Windows()); n != 183 {
		b.Fatalf("%d windows, want 183", n)
	}
	b.ResetTimer()
	for range b.N {
		cs.BookingRoom(q, c)
	}
}
