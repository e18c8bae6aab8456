package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestTaskEnding(t *testing.T) {
	tests := map[string]struct{ state, reason, want string }{
		"finished":          {models.TaskSucceeded, "exited 0", models.EndFinished},
		"failed":            {models.TaskFailed, "exited 3", models.EndFailed},
		"lost with node":    {models.TaskFailed, "node gpu-7 lost: last seen 2026-02-01T00:00:00Z", models.EndLost},
		"reclaimed idle":    {models.TaskReclaimed, "idle for 2h", models.EndReclaimed},
		"released by owner": {models.TaskReclaimed, models.ReleasedReason("ana"), models.EndReleased},
		"timed out":         {models.TaskTimedOut, "max runtime 1h reached", models.EndTimedOut},
		"cancelled":         {models.TaskCancelled, "cancelled by ana", models.EndCancelled},
		"running":           {models.TaskRunning, "process started", ""},
	}
	for name, tc := range tests {
		if got := models.TaskEnding(tc.state, tc.reason); got != tc.want {
			t.Errorf("%s: TaskEnding(%q, %q) = %q, want %q", name, tc.state, tc.reason, got, tc.want)
		}
	}
}

// TestLedgerTaskEnding: the ledger reads how a task ended, its estimate and its last
// checkpoint, on both of LedgerTasks' read paths (a dense id range and chunks of ids).
func TestLedgerTaskEnding(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n, err := s.RegisterNode(ctx, models.NodeRegistration{Hostname: "n1", Pool: "a100", GPUs: []models.GPUInfo{
			{UUID: "n1-g0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}, "hash-n1", billT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EnsureProject(ctx, "vision", billT0); err != nil {
			t.Fatal(err)
		}
		tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "train", Owner: "alice", GPUs: 1, EstGPUHours: 3.5,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, billT0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := s.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.PlaceTask(ctx, tk.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", billT0); err != nil {
			t.Fatal(err)
		}
		if err := s.ReclaimTask(ctx, tk.ID, models.ReleasedReason("alice"), billT0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		end := billT0.Add(2 * time.Hour)
		if err := s.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
			t.Fatal(err)
		}
		checkpoint := billT0.Add(30 * time.Minute)
		if err := models.SetCheckpoint(ctx, s, tk.ID, checkpoint); err != nil {
			t.Fatal(err)
		}
		want := models.LedgerTask{ID: tk.ID, ProjectID: tk.ProjectID, Name: "train", Owner: "alice", GPUs: 1,
			State: models.TaskReclaimed, Ending: models.EndReleased, EndedAt: end.Unix(), EstimatedS: 3*3600 + 1800,
			CheckpointAt: checkpoint.Unix()}
		for name, ids := range map[string][]int64{"dense": {tk.ID}, "chunks": {tk.ID, tk.ID + 1_000_000}} {
			ts, err := s.LedgerTasks(ctx, ids)
			if err != nil || len(ts) != 1 {
				t.Fatalf("%s: LedgerTasks = %+v, %v", name, ts, err)
			}
			if diff := cmp.Diff(want, ts[0]); diff != "" {
				t.Errorf("%s: LedgerTasks (-want +got):\n%s", name, diff)
			}
		}
	})
}
