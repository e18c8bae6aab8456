package schedule_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/schedule"
)

// pipelineFixture stores vision's two-stage pipeline template "nightly-vit" (clean, then
// train) with a weekday-night schedule at 22:00 Shanghai made by its lead lee, and a member
// mia.
func pipelineFixture(t *testing.T, s *models.Store) (models.TaskTemplate, models.TaskSchedule) {
	t.Helper()
	ctx := context.Background()
	t0 := at(3, 12, 0)
	modelstest.Node("n1").Pool("a100").A100s(4).Register(t, s, t0)
	p, err := s.EnsureProject(ctx, "vision", t0)
	if err != nil {
		t.Fatal(err)
	}
	for name, role := range map[string]string{"lee": models.ProjectRoleLead, "mia": models.ProjectRoleMember} {
		u, err := s.CreateUser(ctx, name, "pw-"+name+"-1234", models.RoleUser, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetMember(ctx, p.ID, u.ID, role); err != nil {
			t.Fatal(err)
		}
	}
	task := func(cmd string) models.TemplateBody {
		return models.TemplateBody{GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{cmd}}
	}
	tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "nightly-vit", Body: models.TemplateBody{
		Stages: []models.TemplateStage{{Name: "clean", Task: task("clean")}, {Name: "train", After: []string{"clean"}, Task: task("train")}}}},
		"lee", models.DefaultTaskLimits, t0)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 22 * * 1-5", TimeZone: "Asia/Shanghai",
		Overlap: "skip", StartDeadlineS: 3600, Owner: "lee"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return tpl, ts
}

// runsOf is the schedule's runs, oldest first, as "planned (local) outcome detail".
func runsOf(t *testing.T, s *models.Store, id int64) []string {
	t.Helper()
	runs, err := s.ScheduleRuns(context.Background(), id, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		out = append(out, strings.TrimSpace(r.PlannedAt.In(sh).Format("Mon 15:04")+" "+r.Outcome+" "+r.Detail))
	}
	return out
}

func pipelines(t *testing.T, s *models.Store) []models.PipelineRow {
	t.Helper()
	rows, err := s.Pipelines(context.Background(), nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestPipelineScheduleNightly: a pipeline template's schedule submits its pipeline at
// 22:00 Shanghai, named after the template and the night, owned by the lead who made it;
// the next night, while that pipeline still runs, the run is skipped with the reason
// recorded; once it ended, the night after submits again. On SQLite and Postgres.
func TestPipelineScheduleNightly(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		_, ts := pipelineFixture(t, s)
		r := schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits})
		if err := r.RunOnce(ctx, at(3, 21, 59)); err != nil {
			t.Fatal(err)
		}
		if got := pipelines(t, s); len(got) != 0 {
			t.Fatalf("%d pipelines before 22:00, want none", len(got))
		}
		if err := r.RunOnce(ctx, at(3, 22, 0)); err != nil {
			t.Fatal(err)
		}
		got := pipelines(t, s)
		if len(got) != 1 || got[0].Name != "nightly-vit 2025-03-03 22:00" || got[0].Owner != "lee" || got[0].State != models.PipelineRunning {
			t.Fatalf("pipelines = %+v, want nightly-vit 2025-03-03 22:00 of lee, running", got)
		}
		first := got[0].ID
		if err := r.RunOnce(ctx, at(4, 22, 0)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CancelPipeline(ctx, first, "lee", at(5, 9, 0)); err != nil {
			t.Fatal(err)
		}
		if err := r.RunOnce(ctx, at(5, 22, 0)); err != nil {
			t.Fatal(err)
		}
		want := []string{"Mon 22:00 submitted", "Tue 22:00 skipped pipeline " + itoa(first) + " was still running", "Wed 22:00 submitted"}
		if diff := cmp.Diff(want, runsOf(t, s, ts.ID)); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
		if got := pipelines(t, s); len(got) != 2 {
			t.Errorf("%d pipelines, want 2", len(got))
		}
	})
}

// TestPipelineScheduleTwoLoops: two server loops passing at the same instant (a replica
// beside the leader, or a pass racing a restart) submit the night's pipeline once: the claim
// settles the slot for one, and the submit takes the run's row, so the other finds it
// submitted. On SQLite and Postgres.
func TestPipelineScheduleTwoLoops(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		_, ts := pipelineFixture(t, s)
		now := at(3, 22, 0)
		// The run claimed, then two loops submit the pending run at once.
		run, claimed, err := s.ClaimScheduleRun(ctx, ts, now, models.ScheduleRun{PlannedAt: now, Outcome: models.RunPending}, now)
		if err != nil || !claimed {
			t.Fatalf("ClaimScheduleRun = %v, %v", claimed, err)
		}
		var wg sync.WaitGroup
		ids := make([]int64, 4)
		errs := make([]error, 4)
		for i := range ids {
			wg.Go(func() {
				ids[i], _, errs[i] = s.SubmitSchedulePipeline(ctx, run, models.DefaultTaskLimits, now)
			})
		}
		wg.Wait()
		n := 0
		for i, id := range ids {
			if errs[i] != nil {
				t.Errorf("SubmitSchedulePipeline: %v", errs[i])
			}
			if id != 0 {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d submits made a pipeline, want 1 (%v)", n, ids)
		}
		// Two whole passes at the same instant of the next night, each with its own runner.
		next := at(4, 22, 0)
		if _, err := s.CancelPipeline(ctx, pipelines(t, s)[0].ID, "lee", next.Add(-1)); err != nil {
			t.Fatal(err)
		}
		for i := range errs {
			wg.Go(func() {
				errs[i] = schedule.NewRunner(s, schedule.Config{Limits: models.DefaultTaskLimits}).RunOnce(ctx, next)
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("RunOnce: %v", err)
			}
		}
		if got := pipelines(t, s); len(got) != 2 {
			t.Errorf("%d pipelines after two nights, want 2", len(got))
		}
		if diff := cmp.Diff([]string{"Mon 22:00 submitted", "Tue 22:00 submitted"}, runsOf(t, s, ts.ID)); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
}

// TestPipelineTemplateRoles: the store, not only the page, says who may do what with a
// pipeline template: a member submits it and a non-member may not (ErrForbidden naming the
// template); a member may not schedule it, a lead may, and only with overlap skip; a task
// template is not submitted as a pipeline. On SQLite and Postgres.
func TestPipelineTemplateRoles(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		tpl, _ := pipelineFixture(t, s)
		now := at(3, 13, 0)
		if _, err := s.CreateUser(ctx, "ola", "pw-ola-1234", models.RoleUser, now); err != nil {
			t.Fatal(err)
		}
		p, err := s.SubmitPipelineTemplate(ctx, tpl.ID, "mia", models.DefaultTaskLimits, now)
		if err != nil || p.Name != "nightly-vit" || p.Owner != "mia" {
			t.Fatalf("a member's submit = %+v, %v", p, err)
		}
		var fe *models.FieldError
		if _, err := s.SubmitPipelineTemplate(ctx, tpl.ID, "ola", models.DefaultTaskLimits, now); !errors.Is(err, models.ErrForbidden) || !errors.As(err, &fe) || fe.Field != "template" {
			t.Errorf("a non-member's submit = %v, want ErrForbidden on template", err)
		}
		sched := models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 2 * * *", TimeZone: "Asia/Shanghai", Overlap: "skip", StartDeadlineS: 3600}
		sched.Owner = "mia"
		if _, err := s.CreateSchedule(ctx, sched, now); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("a member's schedule = %v, want ErrForbidden", err)
		}
		sched.Owner, sched.Overlap = "lee", "allow"
		if _, err := s.CreateSchedule(ctx, sched, now); !errors.As(err, &fe) || fe.Field != "overlap" {
			t.Errorf("a lead's schedule that overlaps = %v, want a field error on overlap", err)
		}
		plain, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: tpl.ProjectID, Name: "one", Body: models.TemplateBody{
			GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"x"}}}, "lee", models.DefaultTaskLimits, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SubmitPipelineTemplate(ctx, plain.ID, "lee", models.DefaultTaskLimits, now); !errors.As(err, &fe) || fe.Field != "template" {
			t.Errorf("a task template's pipeline submit = %v, want a field error on template", err)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
