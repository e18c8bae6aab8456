package models_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// The idle and active thresholds are billing settings: changing them classifies what comes
// next, each rollup records the thresholds that classified it, and past rollups keep theirs,
// so a bill can always be explained and recomputed.
func TestMeteringThresholdsAreRecordedWithTheirRollups(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 1)
		// Util 30 all along: low-util under the defaults (idle < 10, active ≥ 40).
		ingest := func(from time.Time) time.Time {
			var batch []models.Reading
			for i := range 10 {
				batch = append(batch, sample("n1-gpu0", from.Add(time.Duration(i)*30*time.Second), 30, 1))
			}
			end := from.Add(5 * time.Minute)
			if _, err := s.IngestSamples(ctx, n.ID, batch, end); err != nil {
				t.Fatal(err)
			}
			if err := s.RollUp(ctx, end, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
			return end
		}
		end := ingest(t0)
		if err := s.SetBillingSettings(ctx, "admin", models.BillingSettings{TimeZone: "UTC", IdleUtilPct: 35, ActiveUtilPct: 60}, end); err != nil {
			t.Fatal(err)
		}
		if got := s.Thresholds(); got.IdleUtilPct != 35 || got.ActiveUtilPct != 60 {
			t.Fatalf("Thresholds() after the change = %+v", got)
		}
		end = ingest(end)
		gpus, _ := s.BoardGPUs(ctx, models.BoardFilter{})
		five, err := s.Rollups(ctx, gpus[0].ID, models.Rollup5m, t0, end)
		if err != nil || len(five) != 2 {
			t.Fatalf("rollups = %d, %v; want 2", len(five), err)
		}
		if r := five[0]; r.NIdle != 0 || r.NActive != 0 || r.IdlePct != 10 || r.ActivePct != 40 {
			t.Errorf("bucket before the change = %+v, want low-util under 10/40", r)
		}
		if r := five[1]; r.NIdle != 10 || r.IdlePct != 35 || r.ActivePct != 60 {
			t.Errorf("bucket after the change = %+v, want idle under 35/60", r)
		}
		for _, bad := range []models.BillingSettings{
			{TimeZone: "UTC", IdleUtilPct: 50, ActiveUtilPct: 40},
			{TimeZone: "UTC", IdleUtilPct: -1},
			{TimeZone: "UTC", ActiveUtilPct: 101},
		} {
			if err := s.SetBillingSettings(ctx, "admin", bad, end); err == nil {
				t.Errorf("SetBillingSettings(%+v) = nil, want a field error", bad)
			}
		}
	})
}

// The thresholds survive a restart: the store reads them from the settings when it opens.
func TestMeteringThresholdsSurviveReopening(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := models.Open(context.Background(), path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetBillingSettings(context.Background(), "admin", models.BillingSettings{TimeZone: "UTC", IdleUtilPct: 5}, t0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = models.Open(context.Background(), path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Thresholds(); got.IdleUtilPct != 5 || got.ActiveUtilPct != models.DefaultThresholds.ActiveUtilPct {
		t.Errorf("Thresholds() after reopening = %+v, want idle 5 and the default active", got)
	}
}
