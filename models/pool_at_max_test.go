package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestSetPoolAtMaxSince(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 2}, "admin", "", ft0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetPoolScaleStatus(ctx, p.ID, 2, 2, nil, ft0); err != nil {
			t.Fatal(err)
		}
		since := ft0.Add(-time.Hour)
		if err := s.SetPoolAtMaxSince(ctx, p.ID, &since, ft0); err != nil {
			t.Fatal(err)
		}
		st, err := s.PoolScaleStates(ctx)
		if got := st[p.ID]; err != nil || got.AtMaxSince == nil || !got.AtMaxSince.Equal(since) || got.Size != 2 {
			t.Errorf("pool state after SetPoolAtMaxSince = %+v, %v; want at max since %v, size kept", got, err, since)
		}
		if err := s.SetPoolAtMaxSince(ctx, p.ID, nil, ft0); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.PoolScaleStates(ctx); st[p.ID].AtMaxSince != nil {
			t.Errorf("at max since after clearing = %v, want nil", st[p.ID].AtMaxSince)
		}
	})
}
