package models_test

import (
	"context"
	"sync"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// Eight replicas claiming the same week at once: exactly one wins; a claim after that, as
// after a restart, loses; another week is claimed apart.
func TestClaimWeeklyReportOnce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const week = "2026-W10"
		if ok, err := s.WeeklyReportClaimed(ctx, week); err != nil || ok {
			t.Fatalf("WeeklyReportClaimed before a claim = %v, %v; want false", ok, err)
		}
		var mu sync.Mutex
		won := 0
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				ok, err := s.ClaimWeeklyReport(ctx, week, t0)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d of 8 concurrent claims won, want 1", won)
		}
		if ok, err := s.ClaimWeeklyReport(ctx, week, t0); err != nil || ok {
			t.Errorf("a later claim = %v, %v; want false", ok, err)
		}
		if ok, err := s.WeeklyReportClaimed(ctx, week); err != nil || !ok {
			t.Errorf("WeeklyReportClaimed after the claim = %v, %v; want true", ok, err)
		}
		if ok, err := s.ClaimWeeklyReport(ctx, "2026-W11", t0); err != nil || !ok {
			t.Errorf("claim of the next week = %v, %v; want true", ok, err)
		}
	})
}
