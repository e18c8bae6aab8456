package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func registerNode(t *testing.T, s *models.Store, host, pool string, gpus int) models.Node {
	t.Helper()
	req := models.NodeRegistration{Hostname: host, Pool: pool}
	for i := 0; i < gpus; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: host + "-gpu" + string(rune('0'+i)), Index: i,
			Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	n, err := s.RegisterNode(context.Background(), req, "hash-"+host, t0)
	if err != nil {
		t.Fatalf("RegisterNode(%s) = %v", host, err)
	}
	return n
}

func TestMigrateIsIdempotent(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		v, err := s.SchemaVersion(context.Background())
		if err != nil || v < 1 {
			t.Fatalf("SchemaVersion() = %d, %v, want ≥ 1", v, err)
		}
	})
}

func TestRegisterNode(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "a100-1", "a100", 8)
		got, err := s.NodeByTokenHash(ctx, "hash-a100-1")
		if err != nil || got.ID != n.ID {
			t.Fatalf("NodeByTokenHash = %+v, %v, want node %d", got, err, n.ID)
		}
		// Registering again rotates the token and keeps one node and its GPUs.
		req := models.NodeRegistration{Hostname: "a100-1", Pool: "a100", NodeTokenHash: "hash-a100-1", GPUs: []models.GPUInfo{
			{UUID: "a100-1-gpu0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
		again, err := s.RegisterNode(ctx, req, "hash-new", t0.Add(time.Minute))
		if err != nil || again.ID != n.ID {
			t.Fatalf("RegisterNode again = %+v, %v, want same id %d", again, err, n.ID)
		}
		// The old token was verified (and so remembered) above; it stops working at once.
		if _, err := s.NodeByTokenHash(ctx, "hash-a100-1"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("old token still valid: %v", err)
		}
		if got, err := s.NodeByTokenHash(ctx, "hash-new"); err != nil || got.ID != n.ID {
			t.Errorf("NodeByTokenHash(new token) = %+v, %v, want node %d", got, err, n.ID)
		}
		gpus, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil || len(gpus) != 8 {
			t.Fatalf("BoardGPUs = %d GPUs, %v, want 8", len(gpus), err)
		}
		if gpus[0].Spec != "A100-80G" || gpus[0].Pool != "a100" || gpus[0].Hostname != "a100-1" {
			t.Errorf("BoardGPUs[0] = %+v", gpus[0])
		}
	})
}

func TestRegisterNodeRejects(t *testing.T) {
	gpu := models.GPUInfo{UUID: "u0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}
	tests := map[string]struct {
		req   models.NodeRegistration
		field string
	}{
		"no hostname":     {models.NodeRegistration{Pool: "p", GPUs: []models.GPUInfo{gpu}}, "hostname"},
		"no pool":         {models.NodeRegistration{Hostname: "h", GPUs: []models.GPUInfo{gpu}}, "pool"},
		"no gpus":         {models.NodeRegistration{Hostname: "h", Pool: "p"}, "gpus"},
		"bad utf8":        {models.NodeRegistration{Hostname: "h\xff", Pool: "p", GPUs: []models.GPUInfo{gpu}}, "hostname"},
		"duplicate uuid":  {models.NodeRegistration{Hostname: "h", Pool: "p", GPUs: []models.GPUInfo{gpu, {UUID: "u0", Index: 1, Name: gpu.Name, MemoryTotalMiB: 1}}}, "gpus[1].uuid"},
		"zero memory":     {models.NodeRegistration{Hostname: "h", Pool: "p", GPUs: []models.GPUInfo{{UUID: "u", Name: "x"}}}, "gpus[0].memory_total_mib"},
		"mixed specs":     {models.NodeRegistration{Hostname: "h", Pool: "p", GPUs: []models.GPUInfo{gpu, {UUID: "u1", Index: 1, Name: "NVIDIA GeForce RTX 4090", MemoryTotalMiB: 24564}}}, "gpus[1].name"},
		"pool other spec": {models.NodeRegistration{Hostname: "h", Pool: "a100", GPUs: []models.GPUInfo{{UUID: "u9", Name: "NVIDIA GeForce RTX 4090", MemoryTotalMiB: 24564}}}, "pool"},
	}
	s := modelstest.SQLite(t, models.Options{})
	registerNode(t, s, "a100-1", "a100", 1)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.RegisterNode(context.Background(), tc.req, "h-"+name, t0)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("RegisterNode = %v, want FieldError on %q", err, tc.field)
			}
		})
	}
	gpus, _ := s.BoardGPUs(context.Background(), models.BoardFilter{})
	if len(gpus) != 1 {
		t.Errorf("after rejected registrations: %d GPUs, want 1 (nothing half-written)", len(gpus))
	}
}

func TestSpecOf(t *testing.T) {
	tests := map[string]struct {
		name string
		mib  int64
		want string
	}{
		"a100":    {"NVIDIA A100-SXM4-80GB", 81920, "A100-80G"},
		"4090":    {"NVIDIA GeForce RTX 4090", 24564, "RTX4090-24G"},
		"h800":    {"NVIDIA H800", 81559, "H800-80G"},
		"l40s":    {"NVIDIA L40S", 46068, "L40S-45G"},
		"nothing": {"NVIDIA", 1024, "GPU-1G"},
	}
	for name, tc := range tests {
		if got := models.SpecOf(tc.name, tc.mib); got != tc.want {
			t.Errorf("%s: SpecOf(%q, %d) = %q, want %q", name, tc.name, tc.mib, got, tc.want)
		}
	}
}
