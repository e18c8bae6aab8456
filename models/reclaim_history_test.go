package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestReclaimEdits: each change of a project's reclaim override is read back from the audit
// log with the override before and after, newest first, narrowed to a project and a period;
// a refused change records nothing.
func TestReclaimEdits(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		var ids []int64
		for _, name := range []string{"vision", "nlp"} {
			p, err := s.EnsureProject(ctx, name, ft0)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		vision, nlp := ids[0], ids[1]
		first, second := models.ReclaimOverride{IdleS: 3600}, models.ReclaimOverride{IdleS: 900, GraceS: 600}
		for i, c := range []struct {
			project int64
			o       models.ReclaimOverride
		}{{vision, first}, {nlp, first}, {vision, second}, {vision, models.ReclaimOverride{IdleS: 1}}} {
			_ = s.SetReclaimOverride(ctx, "lead", c.project, c.o, ft0.Add(time.Duration(i)*time.Hour)) // the last is refused
		}
		es, err := s.ReclaimEdits(ctx, vision, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		got := make([][2]models.ReclaimOverride, len(es))
		for i, e := range es {
			got[i] = [2]models.ReclaimOverride{e.Before, e.After}
			if e.ProjectID != vision || e.Actor != "lead" || e.ID == 0 {
				t.Errorf("edit %d = %+v, want vision's by lead", i, e)
			}
		}
		want := [][2]models.ReclaimOverride{{first, second}, {{}, first}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("vision's reclaim edits (-want +got):\n%s", diff)
		}
		if !es[0].At.Equal(ft0.Add(2*time.Hour)) || es[0].At.Location() != time.UTC {
			t.Errorf("the latest edit at %s, want %s in UTC", es[0].At, ft0.Add(2*time.Hour))
		}
		all, err := s.ReclaimEdits(ctx, 0, ft0.Add(time.Hour), ft0.Add(2*time.Hour))
		if err != nil || len(all) != 1 || all[0].ProjectID != nlp {
			t.Errorf("every project's edits in the second hour = %+v, %v; want nlp's", all, err)
		}
	})
}
