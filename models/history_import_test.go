package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestImportHistory: a stored past reads back as the ledger reads it: the task ended, its
// allocation closed on the past node's card, the card's rollups, the node removed, and the
// scaling events with their reasons and nodes.
func TestImportHistory(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC)
		if _, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 2,
			MaxNodes: 2}, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		s.EnsureProject(ctx, "vision", t0)
		gpus := []models.GPUInfo{{UUID: "GPU-p-0", Index: 0, MemoryTotalMiB: 81920}, {UUID: "GPU-p-1", Index: 1, MemoryTotalMiB: 81920}}
		h := models.History{
			Nodes: []models.HistoryNode{{Pool: "a100", Hostname: "a100-past-001", GPUs: gpus, From: t0, To: t0.Add(3 * time.Hour)}},
			Tasks: []models.HistoryTask{{NewTask: models.NewTask{Project: "vision", Name: "train", Owner: "ana", GPUs: 1,
				Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"train"}},
				State: models.TaskSucceeded, Reason: "exited 0", SubmittedAt: t0, StartedAt: t0.Add(time.Minute),
				EndedAt: t0.Add(time.Hour), Cards: []models.HistoryCard{{Node: 0, GPU: 1}}}},
			Events: []models.HistoryEvent{{Pool: "a100", At: t0.Add(-3 * time.Minute), Kind: "scale-up", Reason: "demand-waiting", FromSize: 0, To: 1, Node: -1},
				{Pool: "a100", At: t0.Add(2 * time.Hour), Kind: "remove", Reason: "node-unneeded", FromSize: 1, To: 0, Node: 0}},
		}
		for b := t0.Unix(); b < t0.Add(time.Hour).Unix(); b += models.Rollup5m {
			h.Rollups = append(h.Rollups, models.HistoryRollup{Node: 0, GPU: 1,
				GPURollup: models.GPURollup{Bucket: b, N: 2, UtilSum: 180, UtilMax: 95, NActive: 2, IdlePct: 10, ActivePct: 40}})
		}
		if err := s.ImportHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		as, err := s.LedgerAllocations(ctx, models.LedgerQuery{From: t0, To: t0.Add(24 * time.Hour)})
		if err != nil || len(as) != 1 || as[0].Start != t0.Add(time.Minute).Unix() || as[0].End != t0.Add(time.Hour).Unix() || as[0].Spec != "A100-80G" {
			t.Fatalf("LedgerAllocations = %+v, %v; want the task's card over [09:01, 10:00)", as, err)
		}
		tasks, err := s.LedgerTasks(ctx, []int64{as[0].TaskID})
		if err != nil || len(tasks) != 1 || tasks[0].State != models.TaskSucceeded || tasks[0].Ending != models.EndFinished {
			t.Fatalf("LedgerTasks = %+v, %v", tasks, err)
		}
		var rs []models.GPURollup
		err = s.LedgerReadings(ctx, []int64{as[0].GPUID}, t0, t0.Add(24*time.Hour), func(_ int64, got []models.GPURollup) error {
			rs = append(rs, got...)
			return nil
		})
		if err != nil || len(rs) != 12 || rs[0].NActive != 2 {
			t.Fatalf("LedgerReadings = %d rows, %v; want 12 active buckets", len(rs), err)
		}
		// The past's scaling events, with their reasons, read back over a period.
		cps, err := s.ConfiguredPools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := s.ScalingEventsIn(ctx, cps[0].ID, t0.Add(-time.Hour), t0.Add(3*time.Hour))
		if err != nil || len(evs) != 2 || evs[0].Kind != "scale-up" || evs[0].Reason != "demand-waiting" || evs[0].NodeID != nil ||
			evs[1].Kind != "remove" || evs[1].NodeID == nil || *evs[1].NodeID != as[0].NodeID || !evs[1].At.Equal(t0.Add(2*time.Hour)) {
			t.Errorf("ScalingEventsIn = %+v, %v; want the scale-up and the past node's removal", evs, err)
		}
		if evs, err := s.ScalingEventsIn(ctx, cps[0].ID, t0, t0.Add(2*time.Hour)); err != nil || len(evs) != 0 {
			t.Errorf("ScalingEventsIn [09:00, 11:00) = %+v, %v; want none (the removal at 11:00 is after)", evs, err)
		}
		if nodes, _ := s.Nodes(ctx); len(nodes) != 0 {
			t.Errorf("Nodes = %+v, want the past node removed", nodes)
		}
	})
}
