package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestLatestPoolSizes checks that each sampled pool gives its latest sample and an unsampled
// pool none.
func TestLatestPoolSizes(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := a100Config()
		cfg.Spec = "H100"
		if _, err := s.SavePoolConfig(ctx, "h100", cfg, "admin", "", ft0); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := s.RecordPoolSize(ctx, a.ID, i, i+1, 8*i, ft0.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.LatestPoolSizes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]models.PoolSizeSample{a.ID: {PoolID: a.ID, At: ft0.Add(2 * time.Minute), Size: 2, Desired: 3, DemandGPUs: 16}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LatestPoolSizes (-want +got):\n%s", diff)
		}
	})
}
