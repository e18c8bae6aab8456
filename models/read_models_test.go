package models_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// everyFieldSet fails the test for each field of the struct v that holds its zero value. A
// read model scanned from a row with every column set has none, unless a field's name does
// not match its column (GORM names GPUs gp_us) and the scan silently left it out. Embedded
// entities are left to the entity's own tests: every insert through GORM checks their names.
// Fields GORM skips (gorm:"-") are computed, not read.
func everyFieldSet(t *testing.T, what string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		f, fv := rv.Type().Field(i), rv.Field(i)
		if !f.IsExported() || f.Anonymous || f.Tag.Get("gorm") == "-" {
			continue
		}
		if fv.IsZero() {
			t.Errorf("%s.%s reads back zero: no column is scanned into it, or the fixture left it unset", what, f.Name)
		}
	}
}

// TestReadModelsFillEveryField reads each read model the store scans from a query of its own
// (joins and aliases, not a table of its own) from a world where every column it selects is
// set, and checks that every field came back set.
func TestReadModelsFillEveryField(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		four := 4
		if _, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestGuarantee,
			models.QuotaChange{GuaranteedGPUs: &four}, "paper deadline", t0); err != nil {
			t.Fatal(err)
		}
		begins, ends := t0.Add(24*time.Hour), t0.Add(33*time.Hour)
		booking, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation,
			models.QuotaChange{ReserveGPUs: 4, ReserveBegins: &begins, ReserveEnds: &ends}, "delivery day", t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, booking.ID, true, "ok", t0); err != nil {
			t.Fatal(err)
		}
		n := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
		body := trainBody()
		body.EnvNames = nil // a schedule cannot give their values
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: w.project.ID, Name: "train", Body: body}, "mia",
			models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		// The first task holds GPU 0, so the second's cards have indices that are not 0.
		first := modelstest.Task("vision", "eval").Spec("A100-80G").Owner("li").Estimate(1, time.Hour).Create(t, s, t0)
		fromTpl := modelstest.Task("vision", "train").GPUs(4).Spec("A100-80G").Owner("mia").Estimate(8, 4*time.Hour).New()
		fromTpl.TemplateID, fromTpl.TemplateVersion = tpl.ID, tpl.Version
		task, _, err := s.CreateTask(ctx, fromTpl, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		modelstest.Run(t, s, first, n, t0.Add(time.Minute))
		modelstest.Run(t, s, task, n, t0.Add(2*time.Minute))
		end := t0.Add(time.Hour)
		for _, tk := range []models.Task{first, task} {
			if err := s.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
				t.Fatal(err)
			}
		}
		// A schedule's run that submitted the task.
		ts, err := s.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 2 * * *", TimeZone: "UTC",
			Overlap: "skip", StartDeadlineS: int64(models.MinStartDeadline / time.Second), Owner: "mia"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		run, claimed, err := s.ClaimScheduleRun(ctx, ts, t0, models.ScheduleRun{PlannedAt: t0, Outcome: models.RunPending}, t0)
		if err != nil || !claimed {
			t.Fatalf("ClaimScheduleRun = %v, %v", claimed, err)
		}
		if err := s.FinishScheduleRun(ctx, run.ID, &task.ID, models.RunSubmitted, "", t0); err != nil {
			t.Fatal(err)
		}
		// A task still running, sent an idle notice after the keep its owner asked for.
		idle := modelstest.Task("vision", "sft").Owner("mia").Create(t, s, end)
		modelstest.Run(t, s, idle, n, end)
		if _, err := s.KeepTask(ctx, idle.ID, "mia", 2*time.Hour, 2, time.UTC, end); err != nil {
			t.Fatal(err)
		}
		if err := s.SetReclaimNotice(ctx, idle.ID, end.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		gpuIDs := make([]int64, len(n.GPUs))
		for i, g := range n.GPUs {
			gpuIDs[i] = g.ID
		}

		for name, read := range map[string]func() (any, error){
			"TaskSpan":        func() (any, error) { return s.TaskSpans(ctx, t0, end) },
			"Holding":         func() (any, error) { return s.HeldBy(ctx, gpuIDs, t0, end) },
			"TaskCard":        func() (any, error) { return s.TaskCards(ctx, task.ID) },
			"TaskRow":         func() (any, error) { return s.Tasks(ctx, models.TaskFilter{}) },
			"MemberRow":       func() (any, error) { return s.ProjectMembers(ctx, w.project.ID) },
			"QuotaRequestRow": func() (any, error) { return s.QuotaRequests(ctx, nil, "") },
			"ReservationRow":  func() (any, error) { return s.Reservations(ctx, begins, ends) },
			"TemplateRow":     func() (any, error) { return s.Templates(ctx, w.project.ID) },
			"LedgerTemplate":  func() (any, error) { return s.LedgerTemplates(ctx, []int64{first.ID, task.ID}) },
			"ScheduleRunRow":  func() (any, error) { return s.ScheduleRuns(ctx, ts.ID, 10) },
			"ReclaimNotice":   func() (any, error) { return s.ReclaimNotices(ctx, "mia") },
		} {
			rows, err := read()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rv := reflect.ValueOf(rows)
			if rv.Len() == 0 {
				t.Errorf("%s: no row read; the fixture should make one", name)
			}
			for i := range rv.Len() {
				everyFieldSet(t, name, rv.Index(i).Interface())
			}
		}
	})
}
