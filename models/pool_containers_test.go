package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestPoolContainerMountsValidated(t *testing.T) {
	var many []string
	for i := range 17 {
		many = append(many, fmt.Sprintf("/d:/d%d", i))
	}
	seventeen := strings.Join(many, ",")
	base := models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 2}
	tests := map[string]struct {
		mounts string
		bad    bool
	}{
		"none":                 {"", false},
		"two, one read-only":   {"/data:/data:ro, /scratch/kashi:/scratch", false},
		"read-write said":      {"/data:/data:rw", false},
		"relative host path":   {"data:/data", true},
		"relative in the box":  {"/data:data", true},
		"dot-dot":              {"/data/../etc:/data", true},
		"unknown mode":         {"/data:/data:rx", true},
		"no container path":    {"/data", true},
		"one path twice":       {"/a:/data,/b:/data:ro", true},
		"quotes":               {`"/data":/data`, true},
		"seventeen mounts":     {seventeen, true},
		"trailing slash":       {"/data/:/data", true},
		"empty pieces skipped": {",/data:/data,", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := base
			cfg.ContainerMounts = tc.mounts
			err := cfg.Validate()
			var fe *models.FieldError
			switch {
			case tc.bad && (!errors.As(err, &fe) || fe.Field != "container_mounts"):
				t.Errorf("Validate() with mounts %q = %v, want an error on container_mounts", tc.mounts, err)
			case !tc.bad && err != nil:
				t.Errorf("Validate() with mounts %q = %v, want nil", tc.mounts, err)
			}
		})
	}
	cfg := base
	cfg.ContainerMounts = " /data:/data:ro ,/scratch:/scratch"
	if got := cfg.Mounts(); len(got) != 2 || got[0] != "/data:/data:ro" || got[1] != "/scratch:/scratch" {
		t.Errorf("Mounts() = %q", got)
	}
}

func TestPoolRequiresImage(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		registerNode(t, s, "a1", "a100", 2)
		h100 := models.NodeRegistration{Hostname: "h1", Pool: "h100",
			GPUs: []models.GPUInfo{{UUID: "h1-gpu0", Name: "NVIDIA H100 80GB HBM3", MemoryTotalMiB: 81559}}}
		if _, err := s.RegisterNode(ctx, h100, "hash-h1", t0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		var a100Spec, h100Spec string
		for _, n := range nodes {
			if n.Hostname == "a1" {
				a100Spec = n.Spec
			} else {
				h100Spec = n.Spec
			}
		}
		cfg := models.PoolConfig{Provider: "static", Spec: a100Spec, GPUsPerNode: 2, MaxNodes: 1, RequireImage: true}
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		tests := map[string]struct {
			spec, image string
			refused     bool
		}{
			"the pool's spec without an image": {a100Spec, "", true},
			"the pool's spec with an image":    {a100Spec, "nvcr.io/nvidia/pytorch:24.05-py3", false},
			"another spec without an image":    {h100Spec, "", false},
			"any spec without an image":        {"", "", true},
			"any spec with an image":           {"", "busybox:1.36", false},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				nt := newTask(name, 1)
				nt.Spec, nt.Image = tc.spec, tc.image
				_, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
				var fe *models.FieldError
				switch {
				case tc.refused && (!errors.As(err, &fe) || fe.Field != "image" || !strings.Contains(fe.Msg, `"a100"`)):
					t.Errorf("CreateTask(spec %q, image %q) = %v, want a refusal on image naming pool a100", tc.spec, tc.image, err)
				case !tc.refused && err != nil:
					t.Errorf("CreateTask(spec %q, image %q) = %v, want it stored", tc.spec, tc.image, err)
				}
			})
		}
	})
}

// TestAssignmentsCarryPoolMounts: a task in an image gets its node's pool's container mounts
// with its assignment; a host task gets none.
func TestAssignmentsCarryPoolMounts(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		cfg := models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 2, MaxNodes: 1,
			ContainerMounts: "/data:/data:ro,/scratch:/scratch"}
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		boxed, host := newTask("boxed", 1), newTask("host", 1)
		boxed.Image = "busybox:1.36"
		nodes, _ := s.Nodes(ctx)
		for i, nt := range []models.NewTask{boxed, host} {
			task, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[i].ID}, false, "placed", t0); err != nil {
				t.Fatal(err)
			}
		}
		as, err := s.Assignments(ctx, n.ID)
		if err != nil || len(as) != 2 {
			t.Fatalf("Assignments() = %+v, %v; want two", as, err)
		}
		if got := as[0].Mounts; len(got) != 2 || got[0] != "/data:/data:ro" || got[1] != "/scratch:/scratch" {
			t.Errorf("mounts of the task in an image = %q, want the pool's two", got)
		}
		if got := as[1].Mounts; got != nil {
			t.Errorf("mounts of the host task = %q, want none", got)
		}
	})
}
