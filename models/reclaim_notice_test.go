package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestReclaimNoticesAndNotifyUser(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		s.EnsureProject(ctx, "vision", now)
		alice, _ := s.CreateUser(ctx, "alice", "pw-alice", models.RoleUser, now)
		req := models.NodeRegistration{Hostname: "n1", Pool: "a100", GPUs: []models.GPUInfo{
			{UUID: "g0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920},
			{UUID: "g1", Index: 1, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
		if _, err := s.RegisterNode(ctx, req, "h", now); err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		var tasks []models.Task
		for i, owner := range []string{"alice", "alice", "bob"} {
			tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "t", Owner: owner, GPUs: 1, Queue: models.QueueLong,
				Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, now)
			if err != nil {
				t.Fatal(err)
			}
			if i < 2 {
				if err := s.PlaceTask(ctx, tk.ID, []int64{nodes[0].GPUs[i].ID}, false, "placed", now); err != nil {
					t.Fatal(err)
				}
			}
			tasks = append(tasks, tk)
		}
		// Alice's first task got a notice, her second none; bob's is queued.
		s.SetReclaimNotice(ctx, tasks[0].ID, now)
		s.SetReclaimNotice(ctx, tasks[2].ID, now)
		got, err := s.ReclaimNotices(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != tasks[0].ID || got[0].Project != "vision" || got[0].NoticeAt == nil || !got[0].NoticeAt.Equal(now) {
			t.Fatalf("ReclaimNotices(alice) = %+v, want task %d with its notice", got, tasks[0].ID)
		}
		// A keep withdraws the notice but the task stays listed, with its keep.
		if _, err := s.KeepTask(ctx, tasks[0].ID, "alice", 2*time.Hour, 2, time.UTC, now); err != nil {
			t.Fatal(err)
		}
		got, _ = s.ReclaimNotices(ctx, "alice")
		if len(got) != 1 || got[0].NoticeAt != nil || got[0].KeptUntil == nil || got[0].KeepsOnDay != 1 || got[0].KeepDay != "2026-03-02" {
			t.Errorf("after a keep = %+v", got)
		}
		if got, _ := s.ReclaimNotices(ctx, "bob"); len(got) != 0 {
			t.Errorf("ReclaimNotices(bob) = %+v, want none: his task holds no card", got)
		}

		fresh, err := s.NotifyUser(ctx, "alice", "k1", "idle-notice", "idle", now)
		if err != nil || !fresh {
			t.Fatalf("NotifyUser = %v, %v; want a new notification", fresh, err)
		}
		if fresh, _ := s.NotifyUser(ctx, "alice", "k1", "idle-notice", "idle", now); fresh {
			t.Errorf("NotifyUser with the same key is new again")
		}
		if notes, _ := s.Notifications(ctx, alice.ID, 10); len(notes) != 1 {
			t.Errorf("alice has %d notifications, want 1", len(notes))
		}
		if _, err := s.NotifyUser(ctx, "nobody", "k", "x", "y", now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("NotifyUser(nobody) = %v, want ErrNotFound", err)
		}
	})
}
