package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestPoolBoots: a pool's boots are those of the machines the scaling loop asked for, newest
// first, deleted ones too; an adopted machine's, counted from when it was found, is not one.
func TestPoolBoots(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		m := time.Minute
		p, _ := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		boot := func(key string, asked time.Time, took time.Duration) {
			t.Helper()
			if err := s.RecordScaleUp(ctx, p.ID, []string{key}, models.ScalingEvent{Kind: "scale-up"}, asked); err != nil {
				t.Fatal(err)
			}
			if err := s.SetMachineProviderID(ctx, key, "i-"+key); err != nil {
				t.Fatal(err)
			}
			n := fleetNode(t, s, "n-"+key, "a100", "i-"+key)
			if err := s.MarkMachineReady(ctx, key, n.ID, asked.Add(took)); err != nil {
				t.Fatal(err)
			}
		}
		boot("k1", ft0, 3*m)
		boot("k2", ft0.Add(10*m), 4*m)
		boot("k3", ft0.Add(20*m), 5*m)
		if err := s.MarkMachineDeleted(ctx, "k1", ft0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		a, err := s.AdoptMachine(ctx, p.ID, "found", "i-found", ft0.Add(30*m))
		if err != nil {
			t.Fatal(err)
		}
		n := fleetNode(t, s, "n-found", "a100", "i-found")
		if err := s.MarkMachineReady(ctx, a.IdempotencyKey, n.ID, ft0.Add(30*m+5*time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := s.PoolBoots(ctx, p.ID, 10)
		if want := []time.Duration{5 * m, 4 * m, 3 * m}; err != nil || !slices.Equal(got, want) {
			t.Errorf("PoolBoots(10) = %v, %v; want %v (the adopted machine's 5 s left out, the deleted one's kept)", got, err, want)
		}
		if got, err := s.PoolBoots(ctx, p.ID, 2); err != nil || !slices.Equal(got, []time.Duration{5 * m, 4 * m}) {
			t.Errorf("PoolBoots(2) = %v, %v; want the latest two", got, err)
		}
	})
}
