package scheduler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notify"
	"kashi/scheduler"
)

// runningTask stores a node and a task of owner running on its first GPU.
func runningTask(t *testing.T, s *models.Store, owner string, now time.Time) models.Task {
	t.Helper()
	ctx := context.Background()
	s.EnsureProject(ctx, "vision", now)
	req := models.NodeRegistration{Hostname: "a100-01", Pool: "a100",
		GPUs: []models.GPUInfo{{UUID: "GPU-0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
	n, err := s.RegisterNode(ctx, req, "hash", now)
	if err != nil {
		t.Fatal(err)
	}
	task, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "train", Owner: owner, GPUs: 1,
		Queue: models.QueueLong, Priority: "normal", Command: []string{"sleep"}, DataReady: true}, models.DefaultTaskLimits, now)
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := s.Nodes(ctx)
	if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", now); err != nil {
		t.Fatal(err)
	}
	if err := s.ReportTaskStatus(ctx, n.ID, task.ID, models.TaskReport{State: models.ReportRunning, TS: now}, now); err != nil {
		t.Fatal(err)
	}
	return task
}

func TestNoticeIdleTask(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	alice, _ := s.CreateUser(ctx, "alice", "pw-alice", models.RoleUser, now)
	task := runningTask(t, s, "alice", now)
	if err := s.SetReclaimNotice(ctx, task.ID, now); err != nil {
		t.Fatal(err)
	}
	a := scheduler.ScaleAction{Kind: scheduler.ActionIdleNotice, TaskID: task.ID, Reason: scheduler.ReasonIdleTask,
		Detail: "task 1 of alice: cards idle for 31m ≥ 30m; stopped at 09:30 UTC unless kept"}
	ch := &recorder{}
	for range 2 { // the second call finds the notice sent and tells nobody again
		if err := scheduler.NoticeIdleTask(ctx, s, []notify.Channel{ch}, a, now.Add(time.Second)); err != nil {
			t.Fatalf("NoticeIdleTask = %v", err)
		}
	}
	notes, _ := s.Notifications(ctx, alice.ID, 10)
	if len(notes) != 1 || notes[0].Kind != scheduler.KindIdleNotice {
		t.Fatalf("alice's notifications = %+v, want one idle notice", notes)
	}
	if !strings.Contains(notes[0].Message, "cards idle for 31m ≥ 30m") || !strings.Contains(notes[0].Message, "#1 train (vision, 1 GPUs)") {
		t.Errorf("notice = %q, want the task and the numbers", notes[0].Message)
	}
	if len(ch.got) != 1 || ch.got[0].Project != "vision" || ch.got[0].Kind != scheduler.KindIdleNotice {
		t.Errorf("channel got %+v, want one idle notice for vision", ch.got)
	}

	// A reclaim tells the owner once more; other actions tell nobody.
	rc := scheduler.ScaleAction{Kind: scheduler.ActionReclaim, TaskID: task.ID, Reason: scheduler.ReasonNoAnswer, Detail: "task 1 of alice: no answer"}
	if err := scheduler.NoticeIdleTask(ctx, s, []notify.Channel{ch}, rc, now.Add(31*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := scheduler.NoticeIdleTask(ctx, s, []notify.Channel{ch}, scheduler.ScaleAction{Kind: scheduler.ActionScaleUp, Pool: "a100"}, now); err != nil {
		t.Fatal(err)
	}
	notes, _ = s.Notifications(ctx, alice.ID, 10)
	if len(notes) != 2 || notes[0].Kind != scheduler.KindReclaimed || len(ch.got) != 2 {
		t.Errorf("after the reclaim: %d notifications (newest %q), %d messages; want 2 and 2", len(notes), notes[0].Kind, len(ch.got))
	}
}

func TestNoticeIdleTaskOwnerWithoutAccount(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	task := runningTask(t, s, "ci-bot", now)
	s.SetReclaimNotice(ctx, task.ID, now)
	ch, bad := &recorder{}, &failing{}
	a := scheduler.ScaleAction{Kind: scheduler.ActionIdleNotice, TaskID: task.ID, Detail: "idle"}
	err := scheduler.NoticeIdleTask(ctx, s, []notify.Channel{ch, bad}, a, now)
	if err == nil || !strings.Contains(err.Error(), "robot down") {
		t.Errorf("NoticeIdleTask with a failing channel = %v, want its error", err)
	}
	if len(ch.got) != 1 {
		t.Errorf("channel got %d messages, want 1 for an owner without an account", len(ch.got))
	}
}
