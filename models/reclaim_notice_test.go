package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// reclaimWorld is project vision with alice (member, owner of two running tasks and a queued
// one), lena (its lead), carol (a member) and ops (an admin), and project nlp whose lead is
// nils; alice's first task has an idle notice.
type reclaimWorld struct {
	tasks                   []models.Task
	alice, lena, carol, ops models.User
}

func newReclaimWorld(t *testing.T, s *models.Store, now time.Time) reclaimWorld {
	t.Helper()
	ctx := context.Background()
	var w reclaimWorld
	vision, _ := s.EnsureProject(ctx, "vision", now)
	nlp, _ := s.EnsureProject(ctx, "nlp", now)
	for _, u := range []struct {
		to      *models.User
		name    string
		project int64
		role    string
	}{{&w.alice, "alice", vision.ID, models.ProjectRoleMember}, {&w.lena, "lena", vision.ID, models.ProjectRoleLead},
		{&w.carol, "carol", vision.ID, models.ProjectRoleMember}, {new(models.User), "nils", nlp.ID, models.ProjectRoleLead}} {
		var err error
		if *u.to, err = s.CreateUser(ctx, u.name, "pw-"+u.name, models.RoleUser, now); err != nil {
			t.Fatal(err)
		}
		if err := s.SetMember(ctx, u.project, u.to.ID, u.role); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if w.ops, err = s.CreateUser(ctx, "ops", "pw-ops", models.RoleAdmin, now); err != nil {
		t.Fatal(err)
	}
	node := modelstest.Node("n1").Pool("a100").A100s(2).Register(t, s, now)
	for i := range 3 {
		tk := modelstest.Task("vision", "t").Owner("alice").Create(t, s, now)
		if i < 2 {
			if err := s.PlaceTask(ctx, tk.ID, []int64{node.GPUs[i].ID}, false, "placed", now); err != nil {
				t.Fatal(err)
			}
		}
		w.tasks = append(w.tasks, tk)
	}
	// Alice's first task got a notice, her second none; the third is queued.
	if err := s.SetReclaimNotice(ctx, w.tasks[0].ID, now); err != nil {
		t.Fatal(err)
	}
	if err := s.SetReclaimNotice(ctx, w.tasks[2].ID, now); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestReclaimNotices: a running task's pending notice is listed for those who may answer it —
// its owner, its project's lead, an admin — and for nobody else; a keep withdraws the
// notice and the task stays listed with its keep.
func TestReclaimNotices(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		w := newReclaimWorld(t, s, now)
		for _, who := range []string{"alice", "lena", "ops"} {
			got, err := s.ReclaimNotices(ctx, who)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].ID != w.tasks[0].ID || got[0].Project != "vision" || got[0].NoticeAt == nil || !got[0].NoticeAt.Equal(now) {
				t.Errorf("ReclaimNotices(%s) = %+v, want task %d with its notice", who, got, w.tasks[0].ID)
			}
		}
		for _, who := range []string{"carol", "nils", "nobody"} {
			if got, err := s.ReclaimNotices(ctx, who); err != nil || len(got) != 0 {
				t.Errorf("ReclaimNotices(%s) = %+v, %v; want none: they may not answer", who, got, err)
			}
		}
		if _, err := s.KeepTask(ctx, w.tasks[0].ID, "lena", 2*time.Hour, 2, time.UTC, now); err != nil {
			t.Fatal(err)
		}
		got, _ := s.ReclaimNotices(ctx, "alice")
		if len(got) != 1 || got[0].NoticeAt != nil || got[0].KeptUntil == nil || got[0].KeepsOnDay != 1 || got[0].KeepDay != "2026-03-02" {
			t.Errorf("after a keep = %+v", got)
		}
	})
}

// TestIdleAnswerers: the owner, a lead of the task's project and an admin keep and release a
// task; a member who is neither, a lead of another project, a disabled lead and someone
// without an account are refused with ErrForbidden, and nothing is written.
func TestIdleAnswerers(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		w := newReclaimWorld(t, s, now)
		task := w.tasks[0].ID
		keep := func(by string) error {
			_, err := s.KeepTask(ctx, task, by, time.Hour, 10, time.UTC, now)
			return err
		}
		for _, by := range []string{"carol", "nils", "nobody"} {
			if err := keep(by); !errors.Is(err, models.ErrForbidden) {
				t.Errorf("KeepTask by %s = %v, want ErrForbidden", by, err)
			}
			if err := s.ReleaseTask(ctx, task, by, now); !errors.Is(err, models.ErrForbidden) {
				t.Errorf("ReleaseTask by %s = %v, want ErrForbidden", by, err)
			}
		}
		if rs, _ := s.TaskReclaims(ctx); rs[task].KeepsOnDay != 0 || rs[task].NoticeAt == nil {
			t.Errorf("refused answers wrote %+v", rs[task])
		}
		for _, by := range []string{"alice", "lena", "ops"} {
			if err := keep(by); err != nil {
				t.Errorf("KeepTask by %s = %v", by, err)
			}
		}
		if err := s.SetUserDisabled(ctx, "ops", "lena", true, now); err != nil {
			t.Fatal(err)
		}
		if err := keep("lena"); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("KeepTask by a disabled lead = %v, want ErrForbidden", err)
		}
		if err := s.ReleaseTask(ctx, task, "alice", now); err != nil {
			t.Fatalf("ReleaseTask by the owner = %v", err)
		}
		row, _ := s.TaskByID(ctx, task)
		if row.StopState != models.TaskReclaimed || row.StopReason != models.ReleasedReason("alice") {
			t.Errorf("released task = %q %q, want reclaimed, released by alice", row.StopState, row.StopReason)
		}
		if err := s.ReleaseTask(ctx, 9999, "ops", now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("ReleaseTask of no task = %v, want ErrNotFound", err)
		}
	})
}

// TestNotifyOwnerAndLeads: a notice about a task reaches its owner and its project's leads,
// once each (a key is sent once to each user, an owner who leads gets one), and nobody else;
// a task none of whose people has an account is ErrNotFound.
func TestNotifyOwnerAndLeads(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		w := newReclaimWorld(t, s, now)
		fresh, err := s.NotifyOwnerAndLeads(ctx, w.tasks[0].ID, "k1", "idle-notice", "idle", now)
		if err != nil || !fresh {
			t.Fatalf("NotifyOwnerAndLeads = %v, %v; want a new notification", fresh, err)
		}
		if fresh, _ := s.NotifyOwnerAndLeads(ctx, w.tasks[0].ID, "k1", "idle-notice", "idle", now); fresh {
			t.Errorf("NotifyOwnerAndLeads with the same key is new again")
		}
		for _, c := range []struct {
			u    models.User
			want int
		}{{w.alice, 1}, {w.lena, 1}, {w.carol, 0}, {w.ops, 0}} {
			if notes, _ := s.Notifications(ctx, c.u.ID, 10); len(notes) != c.want {
				t.Errorf("%s has %d notifications, want %d", c.u.Name, len(notes), c.want)
			}
		}
		// The lead's own task: one notification for her.
		own := modelstest.Task("vision", "own").Owner("lena").Create(t, s, now)
		if _, err := s.NotifyOwnerAndLeads(ctx, own.ID, "k2", "idle-notice", "idle", now); err != nil {
			t.Fatal(err)
		}
		if notes, _ := s.Notifications(ctx, w.lena.ID, 10); len(notes) != 2 {
			t.Errorf("lena has %d notifications, want 2: one each", len(notes))
		}
		bot := modelstest.Task("nobody-leads", "x").Owner("ci-bot").Create(t, s, now)
		if _, err := s.NotifyOwnerAndLeads(ctx, bot.ID, "k3", "idle-notice", "idle", now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("NotifyOwnerAndLeads with nobody to tell = %v, want ErrNotFound", err)
		}
	})
}
