package models_test

import (
	"context"
	"errors"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestNewPoolNames: a new pool, saved by an admin or made by an agent's registration, has a
// name safe in URLs, cloud tags and script arguments; anything else is a field error.
func TestNewPoolNames(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		cfg := models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 8}
		for _, name := range []string{"../../x", "a/b", "-lead", ".hidden", "a b", "a;rm -rf", "ä100", "x234567890123456789012345678901234567890123456789012345678901234"} {
			_, err := s.SavePoolConfig(ctx, name, cfg, "admin", "", t0)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != "name" {
				t.Errorf("save pool %q = %v, want a field error on name", name, err)
			}
			req := models.NodeRegistration{Hostname: "n-" + name, Pool: name,
				GPUs: []models.GPUInfo{{UUID: "g-" + name, Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
			if _, err := s.RegisterNode(ctx, req, "h", t0); !errors.As(err, &fe) || fe.Field != "pool" {
				t.Errorf("register into pool %q = %v, want a field error on pool", name, err)
			}
		}
		for _, name := range []string{"a100", "RTX4090", "h100.sxm_2-east"} {
			if _, err := s.SavePoolConfig(ctx, name, cfg, "admin", "", t0); err != nil {
				t.Errorf("save pool %q = %v", name, err)
			}
		}
	})
}
