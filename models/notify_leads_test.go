package models_test

import (
	"context"
	"sync"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestNotifyLeads: the leads of the projects are told once each, a lead of two projects once,
// members not at all; the same key again, even sent by two callers at once, tells nobody.
func TestNotifyLeads(t *testing.T) {
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
		member := func(name string, project int64, role string) models.User {
			u, err := s.CreateUser(ctx, name, "a long password 1", models.RoleUser, ft0)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetMember(ctx, project, u.ID, role); err != nil {
				t.Fatal(err)
			}
			return u
		}
		both := member("lea", ids[0], models.ProjectRoleLead)
		if err := s.SetMember(ctx, ids[1], both.ID, models.ProjectRoleLead); err != nil {
			t.Fatal(err)
		}
		other := member("leo", ids[1], models.ProjectRoleLead)
		plain := member("mo", ids[0], models.ProjectRoleMember)

		n, err := s.NotifyLeads(ctx, ids, "k1", "pilot-review", "verdicts", ft0)
		if err != nil || n != 2 {
			t.Fatalf("NotifyLeads = %d, %v; want 2 leads told", n, err)
		}
		for u, want := range map[int64]int{both.ID: 1, other.ID: 1, plain.ID: 0} {
			if ns, err := s.Notifications(ctx, u, 10); err != nil || len(ns) != want {
				t.Errorf("user %d's notifications = %d, %v; want %d", u, len(ns), err, want)
			}
		}
		var wg sync.WaitGroup
		told := make([]int, 2)
		for i := range told {
			wg.Go(func() {
				n, err := s.NotifyLeads(ctx, ids, "k1", "pilot-review", "verdicts", ft0)
				if err != nil {
					t.Error(err)
				}
				told[i] = n
			})
		}
		wg.Wait()
		if told[0]+told[1] != 0 {
			t.Errorf("the same key again told %v leads, want none", told)
		}
		if n, err := s.NotifyLeads(ctx, nil, "k2", "pilot-review", "verdicts", ft0); err != nil || n != 0 {
			t.Errorf("NotifyLeads of no project = %d, %v", n, err)
		}
	})
}
