package datacheck_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kashi/datacheck"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestReadinessPerRegion: a task from a template whose data locations name a path per
// region waits for its data, and becomes ready when the path of one of its regions appears,
// with that region as its data's region; a task whose only location cannot be checked
// (s3://) is ready at submit; a task whose data check names a path is checked by it alone.
func TestReadinessPerRegion(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	if _, err := s.RegisterNode(ctx, models.NodeRegistration{Hostname: "n1", Pool: "p", GPUs: []models.GPUInfo{
		{UUID: "g0", Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}, "h", t0); err != nil {
		t.Fatal(err)
	}
	s.EnsureProject(ctx, "vision", t0)
	east, west := t.TempDir(), t.TempDir()
	s.SetDataRoots([]string{east, west})
	submit := func(name string, b models.TemplateBody) int64 {
		b.GPUs, b.Queue, b.Priority, b.Command = 1, models.QueueLong, models.PriorityNormal, []string{"x"}
		tk, _, err := s.CreateTask(ctx, b.NewTask("vision", name, "a", nil), models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		return tk.ID
	}
	perRegion := submit("per-region", models.TemplateBody{Regions: []string{"cn-east", "cn-west"},
		DataLocations: map[string]string{"cn-east": filepath.Join(east, "set"), "cn-west": filepath.Join(west, "set")}})
	bucket := submit("bucket", models.TemplateBody{DataLocations: map[string]string{"cn-east": "s3://east-bucket/set"}})
	ownCheck := submit("own-check", models.TemplateBody{DataCheck: &models.DataCheck{Path: filepath.Join(east, "other")},
		DataLocations: map[string]string{"cn-west": filepath.Join(west, "set")}})

	if row, _ := s.TaskByID(ctx, bucket); row.State != models.TaskQueued {
		t.Errorf("a task whose data is only in a bucket is %s at submit, want queued", row.State)
	}
	r := datacheck.NewReadiness(s, func() time.Time { return t0 }, slog.Default()).
		WithPolicy(datacheck.Policy{Roots: []string{east, west}})
	if n, err := r.CheckOnce(ctx); err != nil || n != 0 {
		t.Fatalf("CheckOnce before the data = %d, %v; want 0", n, err)
	}
	if err := os.WriteFile(filepath.Join(west, "set"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := r.CheckOnce(ctx); err != nil || n != 1 {
		t.Fatalf("CheckOnce with the data in cn-west = %d, %v; want 1", n, err)
	}
	row, _ := s.TaskByID(ctx, perRegion)
	if row.State != models.TaskQueued || row.DataRegion() != "cn-west" {
		t.Errorf("per-region task is %s with data region %q, want queued in cn-west", row.State, row.DataRegion())
	}
	if row, _ := s.TaskByID(ctx, ownCheck); row.State != models.TaskWaitingData {
		t.Errorf("a task with its own data check is %s, want still waiting for it", row.State)
	}
}
