package demo

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestSeedBills: the demo seeds a price for each spec its pools have, one billing plan per
// project covering every mode, from the month before the last; and the logins "member" and
// "lead" get tokens and submit tasks of their own projects.
func TestSeedBills(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	tokens, fresh, err := Seed(ctx, s, now)
	if err != nil || !fresh {
		t.Fatalf("Seed = fresh %v, %v; want a fresh seed", fresh, err)
	}
	ps, err := s.Prices(ctx, "2026-02")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pools {
		if !slices.ContainsFunc(ps, func(x models.Price) bool { return x.Spec == p.spec && x.RateFen > 0 }) {
			t.Errorf("no price of %s in February: %+v", p.spec, ps)
		}
	}
	plans, err := s.BillingPlans(ctx, "2026-02")
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]bool{}
	for _, pl := range plans {
		modes[pl.Mode] = true
	}
	if len(plans) != len(Projects) || !modes[models.BillPayAsYouGo] || !modes[models.BillReserved] || !modes[models.BillPerTask] {
		t.Errorf("February's plans = %+v, want one per project and every mode", plans)
	}
	seen := map[string]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := randomTask(rng).body
		seen[b.Owner] = true
		if !slices.Contains(ownerProjects(b.Owner), b.Project) {
			t.Fatalf("task of %s in %s, not one of their projects", b.Owner, b.Project)
		}
	}
	for _, login := range []string{"member", "lead"} {
		if tokens[login] == "" || !seen[login] {
			t.Errorf("login %s: token %q, submits tasks %v; want both", login, tokens[login], seen[login])
		}
	}
}

// TestSeedAgain: on a database the demo seeded before, Seed makes new tokens for every owner
// of the task stream and nothing else.
func TestSeedAgain(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	if _, _, err := Seed(ctx, s, now); err != nil {
		t.Fatal(err)
	}
	tokens, fresh, err := Seed(ctx, s, now.Add(time.Hour))
	if err != nil || fresh {
		t.Fatalf("Seed again = fresh %v, %v; want the seeded database reused", fresh, err)
	}
	for _, o := range streamOwners {
		if tokens[o] == "" {
			t.Errorf("no token for %s", o)
		}
	}
}
