package models_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestCreateAndArchiveProject(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for name, bad := range map[string]string{"empty": "", "slash": "a/b", "space": "a b", "dot first": ".x"} {
			var fe *models.FieldError
			if _, err := s.CreateProject(ctx, "admin", bad, nil, t0); !errors.As(err, &fe) || fe.Field != "name" {
				t.Errorf("%s: CreateProject(%q) = %v, want a FieldError on name", name, bad, err)
			}
		}
		p, err := s.CreateProject(ctx, "admin", "视觉组", []string{"课题组 视觉", "CC-1204"}, t0)
		if err != nil {
			t.Fatalf("CreateProject = %v", err)
		}
		if got := p.TagList(); len(got) != 2 {
			t.Errorf("tags = %v", got)
		}
		var fe *models.FieldError
		if _, err := s.CreateProject(ctx, "admin", "视觉组", nil, t0); !errors.As(err, &fe) || fe.Field != "name" {
			t.Errorf("a second 视觉组 = %v, want a FieldError on name", err)
		}
		if err := s.SetProjectArchived(ctx, "admin", p.ID, true, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.CreateTask(ctx, modelstest.Task("视觉组", "late").New(), models.DefaultTaskLimits, t0.Add(2*time.Hour))
		if !errors.As(err, &fe) || fe.Field != "project" {
			t.Errorf("a task of an archived project = %v, want a FieldError on project", err)
		}
		if err := s.SetProjectArchived(ctx, "admin", p.ID, false, t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		// Without cards the task is refused still, but no longer for its project.
		_, _, err = s.CreateTask(ctx, modelstest.Task("视觉组", "back").New(), models.DefaultTaskLimits, t0.Add(4*time.Hour))
		if errors.As(err, &fe) && fe.Field == "project" {
			t.Errorf("a task after unarchiving = %v", err)
		}
		if err := s.SetProjectArchived(ctx, "admin", 999, true, t0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("archive project 999 = %v, want ErrNotFound", err)
		}
		log, _ := s.AuditLog(ctx, models.AuditFilter{ProjectID: &p.ID})
		var actions []string
		for _, e := range log {
			actions = append(actions, e.Action)
		}
		if want := "project-unarchive project-archive project-create"; join(actions) != want {
			t.Errorf("audit of the project = %q, want %q", join(actions), want)
		}
	})
}

// A change of a project's tags is audited with the tags before and after it.
func TestSetProjectTagsAudit(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, err := s.CreateProject(ctx, "admin", "vision", []string{"cv"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetProjectTags(ctx, "lead", p.ID, []string{"cv", "课题组 视觉"}, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		log, err := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditProjectTags})
		if err != nil || len(log) != 1 {
			t.Fatalf("audit of the tags = %+v, %v; want one entry", log, err)
		}
		if got := log[0].Before + " → " + log[0].After; got != `{"tags":"cv"} → {"tags":"cv,课题组 视觉"}` {
			t.Errorf("tags' change = %s, want the tags before and after", got)
		}
	})
}

func join(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out
}

func TestGuaranteeAndOverflowRequests(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		four, yes := 4, true
		var fe *models.FieldError
		for name, c := range map[string]struct {
			kind  string
			c     models.QuotaChange
			field string
		}{
			"no value":        {models.RequestGuarantee, models.QuotaChange{}, "guaranteed_gpus"},
			"over the limit":  {models.RequestGuarantee, models.QuotaChange{GuaranteedGPUs: ptr(9)}, "guaranteed_gpus"},
			"negative":        {models.RequestGuarantee, models.QuotaChange{GuaranteedGPUs: ptr(-1)}, "guaranteed_gpus"},
			"no allow":        {models.RequestOverflow, models.QuotaChange{OverflowRateFen: 100}, "overflow_allowed"},
			"a negative rate": {models.RequestOverflow, models.QuotaChange{OverflowAllowed: &yes, OverflowRateFen: -1}, "overflow_rate_fen"},
			"an unknown kind": {"more", models.QuotaChange{}, "kind"},
		} {
			_, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", c.kind, c.c, "why", t0)
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("%s: CreateQuotaRequest = %v, want a FieldError on %s", name, err, c.field)
			}
		}
		g, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestGuarantee,
			models.QuotaChange{GuaranteedGPUs: &four}, "paper deadline", t0)
		if err != nil {
			t.Fatal(err)
		}
		o, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestOverflow,
			models.QuotaChange{OverflowAllowed: &yes, OverflowRateFen: 2500}, "burst", t0)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := s.PendingRequests(ctx, []int64{w.project.ID}); n != 2 {
			t.Errorf("PendingRequests = %d, want 2", n)
		}
		if n, _ := s.PendingRequests(ctx, []int64{}); n != 0 {
			t.Errorf("PendingRequests of no project = %d, want 0", n)
		}
		// Both approvals at once: each applies its own field and keeps the other's.
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, id := range []int64{g.ID, o.ID} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.DecideQuotaRequest(ctx, w.lead, id, true, "", t0.Add(time.Hour))
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("approvals = %v", errs)
		}
		qs, _ := s.Quotas(ctx, w.project.ID)
		if q := qs[0]; q.GuaranteedGPUs != 4 || !q.OverflowAllowed || q.OverflowRateFen != 2500 || q.MaxGPUs != 8 || q.BudgetCardHours != 100 {
			t.Errorf("quota after approvals = %+v, want 4 guaranteed, overflow at 2500 fen, the rest kept", q)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestQuotaOwnReminders(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) { testQuotaOwnReminders(t, s) })
}

func testQuotaOwnReminders(t *testing.T, s *models.Store) {
	ctx := context.Background()
	p, _ := s.EnsureProject(ctx, "vision", t0)
	q := models.Quota{ProjectID: p.ID, MaxGPUs: 8, BudgetCardHours: 10, StartsAt: t0, EndsAt: t0.Add(24 * time.Hour),
		RemindEndDays: "3, 10,3", RemindBudgetPcts: "90"}
	saved, err := s.SetQuota(ctx, "admin", q, t0)
	if err != nil {
		t.Fatal(err)
	}
	if saved.RemindEndDays != "3,10" || saved.RemindBudgetPcts != "90" {
		t.Errorf("saved reminders = %q, %q; want 3,10 and 90", saved.RemindEndDays, saved.RemindBudgetPcts)
	}
	var fe *models.FieldError
	for field, bad := range map[string]models.Quota{
		"remind_end_days":    {RemindEndDays: "0"},
		"remind_budget_pcts": {RemindBudgetPcts: "50,x"},
	} {
		bad.ProjectID, bad.MaxGPUs, bad.BudgetCardHours, bad.StartsAt, bad.EndsAt = p.ID, 8, 10, t0, t0.Add(time.Hour)
		if _, err := s.SetQuota(ctx, "admin", bad, t0); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("SetQuota(%+v) = %v, want a FieldError on %s", bad, err, field)
		}
	}
}

func TestAuditFilter(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) { testAuditFilter(t, s) })
}

func testAuditFilter(t *testing.T, s *models.Store) {
	ctx := context.Background()
	p, _ := s.EnsureProject(ctx, "vision", t0)
	for i, e := range []struct {
		actor, action string
		project       *int64
	}{{"ana", "login", nil}, {"ana", "quota-change", &p.ID}, {"bo", "quota-change", &p.ID}, {"bo", "login", nil}} {
		if err := s.Audit(ctx, t0.Add(time.Duration(i)*time.Hour), e.actor, e.action, e.project, "x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]struct {
		f    models.AuditFilter
		want int
	}{
		"all":         {models.AuditFilter{}, 4},
		"ana":         {models.AuditFilter{Actor: "ana"}, 2},
		"quota of bo": {models.AuditFilter{Actor: "bo", Action: "quota-change"}, 1},
		"project":     {models.AuditFilter{ProjectID: &p.ID}, 2},
		"two hours":   {models.AuditFilter{From: t0.Add(time.Hour), To: t0.Add(3 * time.Hour)}, 2},
		"no projects": {models.AuditFilter{ProjectIDs: []int64{}}, 0},
		"limit":       {models.AuditFilter{Limit: 3}, 3},
	} {
		if got, err := s.AuditLog(ctx, c.f); err != nil || len(got) != c.want {
			t.Errorf("%s: AuditLog = %d entries, %v; want %d", name, len(got), err, c.want)
		}
	}
	if a, err := s.AuditActions(ctx, nil); err != nil || join(a) != "login quota-change" {
		t.Errorf("AuditActions = %v, %v", a, err)
	}
}

// A tag may be key=value (cost-center=CC-1001), as finance systems and clouds tag things; a
// key or value left empty, a second '=', or more than 40 runes is refused naming tags.
func TestProjectTagsKeyValue(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, err := s.CreateProject(ctx, "admin", "recsys", []string{"cost-center=CC-1001", "课题组=推荐", "cv"}, t0)
		if err != nil {
			t.Fatalf("CreateProject with key=value tags = %v", err)
		}
		if got := join(p.TagList()); got != "cost-center=CC-1001 cv 课题组=推荐" {
			t.Errorf("tags = %q", got)
		}
		for _, bad := range []string{"=CC-1001", "cost-center=", "a=b=c", "cost center = CC", "x=" + strings.Repeat("α", 39)} {
			var fe *models.FieldError
			if err := s.SetProjectTags(ctx, "admin", p.ID, []string{bad}, t0); !errors.As(err, &fe) || fe.Field != "tags" {
				t.Errorf("SetProjectTags(%q) = %v, want a FieldError on tags", bad, err)
			}
		}
	})
}
