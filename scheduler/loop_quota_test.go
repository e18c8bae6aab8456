package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
)

// quotaFixture is a store with one 8-card A100 node, project "vision" and a quota on it.
func quotaFixture(t *testing.T, q models.Quota) (*models.Store, *scheduler.Loop, models.Project, time.Time) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	req := models.NodeRegistration{Hostname: "n1", Pool: "a100"}
	for i := 0; i < 8; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("g%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	if _, err := s.RegisterNode(ctx, req, "h", t0); err != nil {
		t.Fatal(err)
	}
	p, _ := s.EnsureProject(ctx, "vision", t0)
	q.ProjectID = p.ID
	if _, err := s.SetQuota(ctx, "admin", q, t0); err != nil {
		t.Fatal(err)
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: func() time.Time { return t0 },
		NodeStaleAfter: 24 * time.Hour})
	return s, loop, p, t0
}

func submit(t *testing.T, s *models.Store, gpus int, at time.Time) models.Task {
	t.Helper()
	tk, _, err := s.CreateTask(context.Background(), models.NewTask{Project: "vision", Name: "t", Owner: "alice", GPUs: gpus,
		Spec: "A100-80G", Queue: models.QueueLong, Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, at)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestLoopEnforcesConcurrentLimit(t *testing.T) {
	ctx := context.Background()
	base := models.Quota{Spec: "A100-80G", MaxGPUs: 4, BudgetCardHours: 1000,
		StartsAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), EndsAt: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	s, loop, _, t0 := quotaFixture(t, base)
	first, second := submit(t, s, 4, t0), submit(t, s, 2, t0)
	if _, err := loop.RunOnce(ctx, t0); err != nil {
		t.Fatal(err)
	}
	if row, _ := s.TaskByID(ctx, first.ID); row.State != models.TaskStarting {
		t.Errorf("first task %s, want starting", row.State)
	}
	row, _ := s.TaskByID(ctx, second.ID)
	if row.State != models.TaskQueued || !strings.Contains(row.Reason, "quota") {
		t.Errorf("second task %s %q, want queued waiting for quota", row.State, row.Reason)
	}
}

func TestLoopBudgetExhaustion(t *testing.T) {
	ctx := context.Background()
	for name, overflow := range map[string]bool{"without overflow": false, "with overflow": true} {
		t.Run(name, func(t *testing.T) {
			q := models.Quota{Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 2, OverflowAllowed: overflow, OverflowRateFen: 500,
				StartsAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), EndsAt: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
			s, loop, _, t0 := quotaFixture(t, q)
			// Two cards for an hour spend the 2 card-hour budget.
			spend := submit(t, s, 2, t0)
			loop.RunOnce(ctx, t0)
			nodes, _ := s.Nodes(ctx)
			s.ReportTaskStatus(ctx, nodes[0].ID, spend.ID, models.TaskReport{State: models.ReportExited, TS: t0.Add(time.Hour)}, t0.Add(time.Hour))
			next := submit(t, s, 1, t0.Add(time.Hour))
			if _, err := loop.RunOnce(ctx, t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			row, _ := s.TaskByID(ctx, next.ID)
			open, _ := s.OpenAllocations(ctx)
			switch {
			case !overflow && (row.State != models.TaskQueued || !strings.Contains(row.Reason, "budget")):
				t.Errorf("task %s %q, want queued waiting for budget", row.State, row.Reason)
			case overflow && (row.State != models.TaskStarting || len(open) != 1 || !open[0].Overflow):
				t.Errorf("task %s with allocations %+v, want starting with an overflow allocation", row.State, open)
			}
		})
	}
}

func TestQuotaStates(t *testing.T) {
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	ends := now.Add(24 * time.Hour)
	quotas := []models.Quota{
		{ProjectID: 1, Spec: "A", MaxGPUs: 8, GuaranteedGPUs: 2, MaxServiceGPUs: 3, BudgetCardHours: 10, StartsAt: now.Add(-time.Hour), EndsAt: ends},
		{ProjectID: 1, Spec: "", MaxGPUs: 12, MaxServiceGPUs: 6, BudgetCardHours: 100, StartsAt: now.Add(-time.Hour), EndsAt: ends, OverflowAllowed: true},
		{ProjectID: 2, Spec: "A", MaxGPUs: 4, BudgetCardHours: 10, StartsAt: now.Add(-48 * time.Hour), EndsAt: now.Add(-time.Hour)},
	}
	usage := map[int64]map[string]int64{1: {"A": 10 * 3600, "B": 3600}}
	got := scheduler.QuotaStates(quotas, usage, map[int64]string{1: "vision", 2: "nlp"}, nil, now)
	v := got["vision"]
	if v.MaxGPUs != 12 || v.MaxGPUsBySpec["A"] != 8 || !v.ExhaustedSpecs["A"] || v.BudgetExhausted || !v.Overflow || v.Guaranteed["A"] != 2 ||
		v.MaxServiceGPUs != 6 || v.MaxServiceGPUsBySpec["A"] != 3 {
		t.Errorf("QuotaStates(...)[vision] = %+v", v)
	}
	if n := got["nlp"]; !n.ExhaustedSpecs["A"] || n.Guaranteed["A"] != 0 {
		t.Errorf("QuotaStates(...)[nlp] = %+v, want an ended contract: exhausted, no guarantee", n)
	}
}

// TestLoopNoQuotaLimit: the loop reads the pools' rule for projects without a quota: a
// project with none holds at most the pool's limit of its spec, tick after tick.
func TestLoopNoQuotaLimit(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
	if _, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 1,
		NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 3}, "admin", "", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
		t.Fatal(err)
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: func() time.Time { return t0 },
		NodeStaleAfter: 24 * time.Hour})
	first, second := submit(t, s, 2, t0), submit(t, s, 2, t0)
	for range 2 {
		if _, err := loop.RunOnce(ctx, t0); err != nil {
			t.Fatal(err)
		}
	}
	if row, _ := s.TaskByID(ctx, first.ID); row.State != models.TaskStarting {
		t.Errorf("first task %s, want starting", row.State)
	}
	if row, _ := s.TaskByID(ctx, second.ID); row.State != models.TaskQueued || !strings.Contains(row.Reason, "no-quota") {
		t.Errorf("second task %s %q, want queued waiting: no quota, and the pool's limit of 3 reached", row.State, row.Reason)
	}
	view, err := loop.Queue(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := view.Use["vision"].Of("A100-80G"); got != 2 {
		t.Errorf("vision holds %d A100 cards, want 2", got)
	}
}
