package notice_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
)

// runningTask stores a node and a task of owner running on its first GPU.
func runningTask(t *testing.T, s *models.Store, owner string, now time.Time) models.Task {
	t.Helper()
	node := modelstest.Node("a100-01").Pool("a100").A100s(1).Register(t, s, now)
	task := modelstest.Task("vision", "train").Owner(owner).Create(t, s, now)
	modelstest.Run(t, s, task, node, now)
	return task
}

func TestIdleTask(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	alice, _ := s.CreateUser(ctx, "alice", "pw-alice", models.RoleUser, now)
	task := runningTask(t, s, "alice", now)
	if err := s.SetReclaimNotice(ctx, task.ID, now); err != nil {
		t.Fatal(err)
	}
	a := notice.IdleEvent{TaskID: task.ID, Detail: "task 1 of alice: cards idle for 31m ≥ 30m; stopped at 09:30 UTC unless kept"}
	ch := &recorder{}
	for range 2 { // the second call finds the notice sent and tells nobody again
		if err := notice.IdleTask(ctx, s, []notify.Channel{ch}, a, time.UTC, now.Add(time.Second)); err != nil {
			t.Fatalf("IdleTask = %v", err)
		}
	}
	// Only the notifications of idle reclaim count here (the task's start told alice too).
	reclaimNotes := func() []models.Notification {
		all, _ := s.Notifications(ctx, alice.ID, 10)
		var out []models.Notification
		for _, n := range all {
			if n.Kind == notice.KindIdleNotice || n.Kind == notice.KindReclaimed {
				out = append(out, n)
			}
		}
		return out
	}
	notes := reclaimNotes()
	if len(notes) != 1 || notes[0].Kind != notice.KindIdleNotice {
		t.Fatalf("alice's notifications = %+v, want one idle notice", notes)
	}
	if !strings.Contains(notes[0].Message, "cards idle for 31m ≥ 30m") || !strings.Contains(notes[0].Message, "#1 train (vision, 1 GPUs)") {
		t.Errorf("notice = %q, want the task and the numbers", notes[0].Message)
	}
	if len(ch.got) != 1 || ch.got[0].Project != "vision" || ch.got[0].Kind != notice.KindIdleNotice {
		t.Errorf("channel got %+v, want one idle notice for vision", ch.got)
	}

	// A reclaim tells the owner once more.
	rc := notice.IdleEvent{TaskID: task.ID, Reclaimed: true, Detail: "task 1 of alice: no answer"}
	if err := notice.IdleTask(ctx, s, []notify.Channel{ch}, rc, time.UTC, now.Add(31*time.Minute)); err != nil {
		t.Fatal(err)
	}
	notes = reclaimNotes()
	if len(notes) != 2 || notes[0].Kind != notice.KindReclaimed || len(ch.got) != 2 {
		t.Errorf("after the reclaim: %d notifications (newest %q), %d messages; want 2 and 2", len(notes), notes[0].Kind, len(ch.got))
	}
}

func TestIdleTaskOwnerWithoutAccount(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	task := runningTask(t, s, "ci-bot", now)
	s.SetReclaimNotice(ctx, task.ID, now)
	ch, bad := &recorder{}, &failing{}
	a := notice.IdleEvent{TaskID: task.ID, Detail: "idle"}
	err := notice.IdleTask(ctx, s, []notify.Channel{ch, bad}, a, time.UTC, now)
	if err == nil || !strings.Contains(err.Error(), "robot down") {
		t.Errorf("IdleTask with a failing channel = %v, want its error", err)
	}
	if len(ch.got) != 1 {
		t.Errorf("channel got %d messages, want 1 for an owner without an account", len(ch.got))
	}
}
