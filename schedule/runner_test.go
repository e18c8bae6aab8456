package schedule_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/schedule"
)

// sh is Asia/Shanghai; monday is 2025-03-03 in it.
var sh, _ = time.LoadLocation("Asia/Shanghai")

func at(day, hour, min int) time.Time { return time.Date(2025, 3, day, hour, min, 0, 0, sh) }

// fixture stores a project with a 4-GPU node, a template and a weekday-night schedule made
// at Monday noon with the given overlap policy.
func fixture(t *testing.T, s *models.Store, overlap string) models.TaskSchedule {
	t.Helper()
	ctx := context.Background()
	t0 := at(3, 12, 0)
	modelstest.Node("n1").Pool("a100").A100s(4).Register(t, s, t0)
	p, err := s.EnsureProject(ctx, "vision", t0)
	if err != nil {
		t.Fatal(err)
	}
	lee, err := s.CreateUser(ctx, "lee", "pw-lee-1234", models.RoleUser, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, p.ID, lee.ID, models.ProjectRoleLead); err != nil {
		t.Fatal(err)
	}
	tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "nightly", Body: models.TemplateBody{
		GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"train"}}}, "lee", models.DefaultTaskLimits, t0)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 22 * * 1-5", TimeZone: "Asia/Shanghai",
		Overlap: overlap, StartDeadlineS: 3600, Owner: "lee"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// history is the schedule's runs, oldest first, as "planned (local) outcome task-state".
func history(t *testing.T, s *models.Store, id int64) []string {
	t.Helper()
	runs, err := s.ScheduleRuns(context.Background(), id, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		out = append(out, r.PlannedAt.In(sh).Format("Mon 15:04")+" "+r.Outcome+" "+r.TaskState)
	}
	return out
}

// cancelAll cancels every active task, as if the runs had ended.
func cancelAll(t *testing.T, s *models.Store, now time.Time) {
	t.Helper()
	tasks, err := s.ActiveTasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if err := s.CancelTask(context.Background(), task.ID, "test", now); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunnerWeekWithDowntime(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ts := fixture(t, s, "allow")
		triggered := 0
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits, OnSubmit: func() { triggered++ }})
		ctx := context.Background()
		// Every 10 minutes from Monday noon to Tuesday noon, then the server is down until
		// Thursday 22:30, then every 10 minutes to Saturday.
		for now := at(3, 12, 0); now.Before(at(4, 12, 0)); now = now.Add(10 * time.Minute) {
			if err := r.RunOnce(ctx, now); err != nil {
				t.Fatal(err)
			}
		}
		for now := at(6, 22, 30); now.Before(at(8, 12, 0)); now = now.Add(10 * time.Minute) {
			if err := r.RunOnce(ctx, now); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"Mon 22:00 submitted queued", "Thu 22:00 submitted queued", "Fri 22:00 submitted queued"}
		if diff := cmp.Diff(want, history(t, s, ts.ID)); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
		if triggered != 3 {
			t.Errorf("OnSubmit called %d times, want 3", triggered)
		}
	})
}

func TestRunnerMissedPastDeadline(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ts := fixture(t, s, "allow")
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		// Down from Monday noon to Tuesday 23:30: Monday's and Tuesday's runs are past the
		// deadline; none starts, one missed run is recorded, and Wednesday runs as planned.
		for _, now := range []time.Time{at(3, 12, 0), at(4, 23, 30), at(4, 23, 40), at(5, 22, 0)} {
			if err := r.RunOnce(context.Background(), now); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"Mon 22:00 missed ", "Wed 22:00 submitted queued"}
		if diff := cmp.Diff(want, history(t, s, ts.ID)); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
}

func TestRunnerOverlap(t *testing.T) {
	tests := map[string]struct {
		overlap string
		want    []string
	}{
		"allow":   {"allow", []string{"Mon 22:00 submitted queued", "Tue 22:00 submitted queued"}},
		"skip":    {"skip", []string{"Mon 22:00 submitted queued", "Tue 22:00 skipped "}},
		"replace": {"replace", []string{"Mon 22:00 submitted cancelled", "Tue 22:00 submitted queued"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
				ts := fixture(t, s, tc.overlap)
				r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
				for _, now := range []time.Time{at(3, 22, 0), at(4, 22, 1)} {
					if err := r.RunOnce(context.Background(), now); err != nil {
						t.Fatal(err)
					}
				}
				if diff := cmp.Diff(tc.want, history(t, s, ts.ID)); diff != "" {
					t.Errorf("runs (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestRunnerSkipsOnlyWhileActive(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ts := fixture(t, s, "skip")
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		ctx := context.Background()
		if err := r.RunOnce(ctx, at(3, 22, 0)); err != nil {
			t.Fatal(err)
		}
		cancelAll(t, s, at(4, 8, 0))
		if err := r.RunOnce(ctx, at(4, 22, 0)); err != nil {
			t.Fatal(err)
		}
		want := []string{"Mon 22:00 submitted cancelled", "Tue 22:00 submitted queued"}
		if diff := cmp.Diff(want, history(t, s, ts.ID)); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
}

func TestRunnerRestartNeverSubmitsTwice(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ts := fixture(t, s, "allow")
		ctx := context.Background()
		now := at(3, 22, 0)
		// A crash after the run was claimed and its task created, before the run was
		// finished: the restarted loop finds it pending and submits it again with the same
		// key, which returns the first task.
		run, claimed, err := s.ClaimScheduleRun(ctx, ts, now, models.ScheduleRun{PlannedAt: now, Outcome: models.RunPending}, now)
		if err != nil || !claimed {
			t.Fatalf("ClaimScheduleRun = %v, %v", claimed, err)
		}
		nt, err := s.ScheduleSubmission(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		first, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, now)
		if err != nil {
			t.Fatal(err)
		}
		// The same claim again (a second replica, or a pass racing) claims nothing.
		if _, claimed, err := s.ClaimScheduleRun(ctx, ts, now, models.ScheduleRun{PlannedAt: now, Outcome: models.RunPending}, now); err != nil || claimed {
			t.Fatalf("second ClaimScheduleRun = %v, %v; want not claimed", claimed, err)
		}
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		for _, at := range []time.Time{now.Add(time.Minute), now.Add(2 * time.Minute)} {
			if err := r.RunOnce(ctx, at); err != nil {
				t.Fatal(err)
			}
		}
		tasks, err := s.Tasks(ctx, models.TaskFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 1 || tasks[0].ID != first.ID {
			t.Fatalf("tasks after the restart = %d, want only task %d", len(tasks), first.ID)
		}
		runs, _ := s.ScheduleRuns(ctx, ts.ID, 10)
		if len(runs) != 1 || runs[0].TaskID == nil || *runs[0].TaskID != first.ID || runs[0].Outcome != models.RunSubmitted {
			t.Errorf("runs = %+v, want one submitted run of task %d", runs, first.ID)
		}
	})
}

func TestRunnerSuspendResume(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ts := fixture(t, s, "allow")
		ctx := context.Background()
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		if err := s.SetScheduleSuspended(ctx, ts.ID, true, at(3, 13, 0)); err != nil {
			t.Fatal(err)
		}
		if err := r.RunOnce(ctx, at(3, 22, 0)); err != nil {
			t.Fatal(err)
		}
		// Resumed at 22:30: Monday's run fell while suspended and never starts.
		if err := s.SetScheduleSuspended(ctx, ts.ID, false, at(3, 22, 30)); err != nil {
			t.Fatal(err)
		}
		for _, now := range []time.Time{at(3, 22, 40), at(4, 22, 0)} {
			if err := r.RunOnce(ctx, now); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"Tue 22:00 submitted queued"}
		if diff := cmp.Diff(want, history(t, s, ts.ID)); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
}

// TestScheduleStopsWhenItsOwnerLeaves: a schedule acts for its owner. Once the owner is
// removed from the project, or disabled, the next due run submits nothing: the schedule is
// suspended with why, and the owner and the project's leads are told once.
func TestScheduleStopsWhenItsOwnerLeaves(t *testing.T) {
	for _, leave := range []string{"removed", "disabled"} {
		t.Run(leave, func(t *testing.T) {
			modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
				ctx := context.Background()
				ts := fixture(t, s, "allow")
				p, _ := s.ProjectByName(ctx, "vision")
				boss, _ := s.CreateUser(ctx, "boss", "pw-boss-1234", models.RoleUser, at(3, 12, 0))
				s.SetMember(ctx, p.ID, boss.ID, models.ProjectRoleLead)
				lee, _ := s.UserByName(ctx, "lee")
				if leave == "removed" {
					if err := s.SetMember(ctx, p.ID, lee.ID, ""); err != nil {
						t.Fatal(err)
					}
				} else if err := s.SetUserDisabled(ctx, "boss", "lee", true, at(3, 13, 0)); err != nil {
					t.Fatal(err)
				}
				r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
				for _, now := range []time.Time{at(3, 22, 1), at(4, 22, 1)} {
					if err := r.RunOnce(ctx, now); err != nil {
						t.Fatal(err)
					}
				}
				if got := history(t, s, ts.ID); len(got) != 0 {
					t.Errorf("runs after the owner %s = %v, want none", leave, got)
				}
				after, _ := s.ScheduleByID(ctx, ts.ID)
				want := map[string]string{"removed": models.OwnerLeft, "disabled": models.OwnerDisabled}[leave]
				if !after.Suspended || after.SuspendedWhy != want {
					t.Errorf("schedule = suspended %v why %q, want suspended, %s", after.Suspended, after.SuspendedWhy, want)
				}
				for _, u := range []models.User{boss, lee} {
					notes, _ := s.Notifications(ctx, u.ID, 10)
					if len(notes) != 1 || notes[0].Kind != models.NoteScheduleSuspended {
						t.Errorf("%s's notifications = %+v, want one %s", u.Name, notes, models.NoteScheduleSuspended)
					}
				}
			})
		})
	}
}

// TestScheduleWaitingBounded: an every-minute schedule that allows overlaps, on a fleet that
// places nothing, has at most MaxScheduleWaiting tasks waiting; the runs beyond are skipped
// and say why.
func TestScheduleWaitingBounded(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ts := fixture(t, s, "allow")
		tpl, _ := s.TemplateByID(ctx, ts.TemplateID)
		minutely, err := s.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "* * * * *", TimeZone: "Asia/Shanghai",
			Overlap: "allow", StartDeadlineS: 3600, Owner: "lee"}, at(3, 12, 0))
		if err != nil {
			t.Fatal(err)
		}
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		for m := 1; m <= 10; m++ {
			if err := r.RunOnce(ctx, at(3, 12, m)); err != nil {
				t.Fatal(err)
			}
		}
		waiting, err := s.ScheduleWaiting(ctx, minutely.ID)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := s.ScheduleRuns(ctx, minutely.ID, 100)
		skipped := 0
		for _, run := range runs {
			if run.Outcome == models.RunSkipped && strings.Contains(run.Detail, "still wait") {
				skipped++
			}
		}
		if waiting != models.MaxScheduleWaiting || skipped != 10-models.MaxScheduleWaiting {
			t.Errorf("after 10 minutes: %d waiting, %d skipped; want %d and %d", waiting, skipped, models.MaxScheduleWaiting, 10-models.MaxScheduleWaiting)
		}
	})
}

// TestRunnerRefusesUncheckablePath: a scheduled run of a template whose data check names a
// path fails, naming data_check, on a server that checks no paths (restarted without its
// --data-root since the template was saved), rather than submitting a task that would wait
// on a check that never runs.
func TestRunnerRefusesUncheckablePath(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := at(3, 12, 0)
		modelstest.Node("n1").Pool("a100").A100s(4).Register(t, s, t0)
		p, err := s.EnsureProject(ctx, "vision", t0)
		if err != nil {
			t.Fatal(err)
		}
		lee, err := s.CreateUser(ctx, "lee", "pw-lee-1234", models.RoleUser, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetMember(ctx, p.ID, lee.ID, models.ProjectRoleLead); err != nil {
			t.Fatal(err)
		}
		s.SetDataRoots([]string{"/data"})
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "nightly", Body: models.TemplateBody{
			GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"train"},
			DataCheck: &models.DataCheck{Path: "/data/nightly/_READY"}}}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := s.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 22 * * 1-5", TimeZone: "Asia/Shanghai",
			Overlap: "allow", StartDeadlineS: 3600, Owner: "lee"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		s.SetDataRoots(nil)
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		for now := t0; now.Before(at(3, 23, 0)); now = now.Add(10 * time.Minute) {
			if err := r.RunOnce(ctx, now); err != nil {
				t.Fatal(err)
			}
		}
		runs, err := s.ScheduleRuns(ctx, ts.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Outcome != models.RunFailed || runs[0].TaskID != nil || !strings.HasPrefix(runs[0].Detail, "data_check: ") {
			t.Errorf("runs = %+v, want one failed run naming data_check and no task", runs)
		}
		if tasks, _ := s.ActiveTasks(ctx); len(tasks) != 0 {
			t.Errorf("active tasks = %d, want none", len(tasks))
		}
	})
}
