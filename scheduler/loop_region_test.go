package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
)

// TestLoopPlacesByRegion reads each node's region from its pool's settings and a task's
// specs, regions and data region from the store: the task goes to its data's region while
// cards are free there, and one that accepts only a full region waits there.
func TestLoopPlacesByRegion(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	for _, pl := range []struct{ pool, region, host string }{{"a100-east", "cn-east", "e1"}, {"a100-west", "cn-west", "w1"}} {
		if _, err := s.SavePoolConfig(ctx, pl.pool, models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 4,
			Region: pl.region, MaxNodes: 1}, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		req := models.NodeRegistration{Hostname: pl.host, Pool: pl.pool}
		for i := range 4 {
			req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-%d", pl.host, i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
		}
		if _, err := s.RegisterNode(ctx, req, "h-"+pl.host, t0); err != nil {
			t.Fatal(err)
		}
	}
	s.EnsureProject(ctx, "vision", t0)
	task := func(name string, gpus int, edit func(*models.NewTask)) models.Task {
		nt := models.NewTask{Project: "vision", Name: name, Owner: "alice", GPUs: gpus, Queue: models.QueueLong,
			Priority: "normal", Command: []string{"x"}, DataReady: true}
		edit(&nt)
		tk, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	west := task("west-data", 3, func(nt *models.NewTask) {
		nt.Specs, nt.DataCheck = []string{"A100-80G"}, models.DataCheck{Path: "/data/x", Region: "cn-west"}
	})
	east := task("east-only", 2, func(nt *models.NewTask) { nt.Regions = []string{"cn-east"} })
	eastToo := task("east-too", 3, func(nt *models.NewTask) { nt.Regions = []string{"cn-east"} })
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: func() time.Time { return t0 },
		NodeStaleAfter: 24 * time.Hour})
	plan, err := loop.RunOnce(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, p := range plan.Placements {
		got[p.TaskID] = p.Region + " " + p.Why
	}
	for _, w := range plan.Waiting {
		got[w.TaskID] = "waits " + string(w.Reason) + " in " + w.PlaceRegion
	}
	want := map[int64]string{west.ID: "cn-west data-region", east.ID: "cn-east only", eastToo.ID: "waits no-free-gpus in cn-east"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("task %d: %q, want %q", id, got[id], w)
		}
	}
}
