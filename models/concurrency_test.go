package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// race runs f(i) for i in [0, n) at once and returns their errors.
func race(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errs
}

// TestConcurrentQuotaEdits: admin edits of a quota not yet there, at once, all succeed; one
// creates it, the others replace it.
func TestConcurrentQuotaEdits(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		errs := race(6, func(i int) error {
			q := models.Quota{ProjectID: w.project.ID, Spec: "H800-80G", MaxGPUs: 1 + i, BudgetCardHours: 100,
				StartsAt: t0, EndsAt: t0.Add(time.Hour)}
			_, err := s.SetQuota(ctx, "admin", q, t0)
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("SetQuota %d: %v", i, err)
			}
		}
		if qs, _ := s.Quotas(ctx, w.project.ID); len(qs) != 2 {
			t.Errorf("quotas = %d, want 2", len(qs))
		}
	})
}

// TestConcurrentKeeps: eight keeps at once of a task that may be kept twice a day succeed
// twice.
func TestConcurrentKeeps(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		fleetNode(t, s, "n1", "a100", "")
		answerer(t, s, "vision", "alice")
		task, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "alice", GPUs: 1,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"true"}, DataReady: true}, models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", ft0); err != nil {
			t.Fatal(err)
		}
		errs := race(8, func(int) error {
			_, err := s.KeepTask(ctx, task.ID, "alice", time.Hour, 2, time.UTC, ft0)
			return err
		})
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, models.ErrConflict):
				t.Errorf("KeepTask = %v, want nil or ErrConflict", err)
			}
		}
		if ok != 2 {
			t.Errorf("keeps that succeeded = %d, want 2 (the day's limit)", ok)
		}
	})
}

// TestConcurrentPoolSaves: six configuration saves at once give versions 1 to 6.
func TestConcurrentPoolSaves(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "first", ft0); err != nil {
			t.Fatal(err)
		}
		errs := race(5, func(i int) error {
			cfg := a100Config()
			cfg.MaxNodes = 10 + i
			_, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "edit", ft0)
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("save %d: %v", i, err)
			}
		}
		vs, err := s.PoolConfigVersions(ctx, "a100")
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, v := range vs {
			got = append(got, v.Version)
		}
		if diff := cmp.Diff([]int{6, 5, 4, 3, 2, 1}, got); diff != "" {
			t.Errorf("versions (-want +got):\n%s", diff)
		}
	})
}

// TestConcurrentAdjustmentAndIssue: an adjustment racing with the issue of its month either
// lands in the issued bill or is refused; it never lands silently after the bill froze.
func TestConcurrentAdjustmentAndIssue(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
		for round := range 5 {
			month := time.Date(2026, time.Month(3+round), 1, 0, 0, 0, 0, time.UTC)
			b := frozenBill(p.ID, month.Format("2006-01"), from, to)
			after := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
			race(2, func(i int) error {
				if i == 0 {
					_, err := s.IssueBill(ctx, b, after)
					return err
				}
				_, err := s.AddAdjustment(ctx, models.Adjustment{ProjectID: p.ID, Month: b.Month, AmountFen: 5, Reason: "r", CreatedBy: "f"}, after)
				return err
			})
			_, issued := s.IssuedBillOf(ctx, p.ID, b.Month)
			adj, _ := s.Adjustments(ctx, p.ID, b.Month)
			if issued == nil && len(adj) != 0 {
				t.Errorf("%s: issued without adjustments, yet %d landed on it", b.Month, len(adj))
			}
		}
	})
}

// answerer makes name a user and a member of project, creating both, so that they may answer
// the idle notices of the tasks they own there (models.Store.KeepTask, ReleaseTask).
func answerer(t *testing.T, s *models.Store, project, name string) {
	t.Helper()
	ctx := context.Background()
	p, err := s.EnsureProject(ctx, project, ft0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(ctx, name, "pw-"+name, models.RoleUser, ft0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
		t.Fatal(err)
	}
}
