package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestTemplateRollback: rolling a template back to an earlier version saves a new version
// equal to it (description and body; the name stays) that says which version it restores,
// with an audit entry in the same transaction; rolling back to fields that are already
// current changes nothing; a version that is not an earlier one, or fields the task rules now
// refuse, are refused naming the field, and nothing is written.
func TestTemplateRollback(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := templateStore(t, s)
		s.SetDataRoots([]string{"/data"})
		v1 := trainBody()
		v1.DataCheck = &models.DataCheck{Path: "/data/train/_READY"}
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Description: "first", Body: v1}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		v2 := v1
		v2.GPUs, v2.Priority = 4, models.PriorityHigh
		if _, err := s.UpdateTemplate(ctx, tpl.ID, models.NewTemplate{Name: "train-renamed", Description: "second", Body: v2}, "mei", models.DefaultTaskLimits, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		back, changed, err := s.RollBackTemplate(ctx, tpl.ID, 1, "lee", models.DefaultTaskLimits, t0.Add(2*time.Hour))
		if err != nil || !changed || back.Version != 3 || back.Name != "train-renamed" || back.Description != "first" {
			t.Fatalf("RollBackTemplate(1) = %+v, %v, %v; want version 3 named train-renamed, described first", back, changed, err)
		}
		if diff := cmp.Diff(v1, back.Fields()); diff != "" {
			t.Errorf("fields after the rollback (-v1 +got):\n%s", diff)
		}
		versions, err := s.TemplateVersions(ctx, tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		var changes []string
		for _, c := range versions[0].Changes() {
			changes = append(changes, c.Field)
		}
		if v := versions[0]; v.Version != 3 || v.Restores != 1 || v.By != "lee" || !cmp.Equal(changes, []string{"description", "gpus", "priority"}) {
			t.Errorf("version 3 = %+v changing %v, want lee's restoring 1 with description, gpus and priority", v, changes)
		}
		if versions[1].Restores != 0 {
			t.Errorf("version 2 restores %d, want 0", versions[1].Restores)
		}
		audit, err := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditTemplateRollback})
		if err != nil || len(audit) != 1 || audit[0].Actor != "lee" || audit[0].Subject != "template train-renamed" ||
			audit[0].ProjectID == nil || *audit[0].ProjectID != p.ID || audit[0].Before != `{"version":2}` || audit[0].After != `{"restores":1,"version":3}` {
			t.Errorf("audit = %+v, %v; want lee's rollback of train-renamed from 2 to 3 restoring 1", audit, err)
		}
		// Version 1's fields are current now: rolling back to it again changes nothing.
		same, changed, err := s.RollBackTemplate(ctx, tpl.ID, 1, "lee", models.DefaultTaskLimits, t0.Add(3*time.Hour))
		if err != nil || changed || same.Version != 3 {
			t.Errorf("RollBackTemplate(1) again = version %d, %v, %v; want 3 unchanged", same.Version, changed, err)
		}
		// Not an earlier version, or fields the rules refuse now (no data roots: path checks are
		// off): refused, naming the field, with nothing written.
		for _, c := range []struct {
			version int
			roots   []string
			field   string
		}{{3, []string{"/data"}, "version"}, {0, []string{"/data"}, "version"}, {-1, []string{"/data"}, "version"},
			{99, []string{"/data"}, "version"}, {2, nil, "data_check"}} {
			s.SetDataRoots(c.roots)
			_, _, err := s.RollBackTemplate(ctx, tpl.ID, c.version, "lee", models.DefaultTaskLimits, t0.Add(4*time.Hour))
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("RollBackTemplate(%d) with roots %v = %v, want a FieldError on %s", c.version, c.roots, err, c.field)
			}
		}
		if vs, _ := s.TemplateVersions(ctx, tpl.ID); len(vs) != 3 {
			t.Errorf("%d versions after refused rollbacks, want 3", len(vs))
		}
		if audit, _ := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditTemplateRollback}); len(audit) != 1 {
			t.Errorf("%d rollback audit entries, want 1", len(audit))
		}
		if _, _, err := s.RollBackTemplate(ctx, tpl.ID+100, 1, "lee", models.DefaultTaskLimits, t0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("RollBackTemplate of no template = %v, want ErrNotFound", err)
		}
		s.SetDataRoots([]string{"/data"})
		one, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "one", Body: trainBody()}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		var fe *models.FieldError
		if _, _, err := s.RollBackTemplate(ctx, one.ID, 1, "lee", models.DefaultTaskLimits, t0); !errors.As(err, &fe) || fe.Field != "version" {
			t.Errorf("RollBackTemplate of a one-version template = %v, want a FieldError on version", err)
		}
	})
}
