package models_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// wantField is err as a *FieldError on field, its message holding each of says.
func wantField(t *testing.T, what string, err error, field string, says ...string) {
	t.Helper()
	var fe *models.FieldError
	if !errors.As(err, &fe) || fe.Field != field {
		t.Errorf("%s = %v, want a FieldError on %s", what, err, field)
		return
	}
	for _, s := range says {
		if !strings.Contains(fe.Msg, s) {
			t.Errorf("%s = %q, want it to say %q", what, fe.Msg, s)
		}
	}
}

// A lead approves within the contract the admin set; above it the store refuses the lead
// (ErrForbidden naming the field), whoever the handler let through, and an admin's approval
// raises the contract to what it approved.
func TestContractIsTheCeiling(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s) // limit 8 (contract 12), guarantee 2 (4), budget 100 (200)
		admin, err := s.CreateUser(ctx, "ada", "pw-ada", models.RoleAdmin, t0)
		if err != nil {
			t.Fatal(err)
		}
		ask := func(kind string, c models.QuotaChange) models.QuotaRequest {
			t.Helper()
			r, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", kind, c, "more", t0)
			if err != nil {
				t.Fatalf("CreateQuotaRequest(%s) = %v", kind, err)
			}
			return r
		}
		within := ask(models.RequestLimit, models.QuotaChange{MaxGPUs: 12})
		if _, err := s.DecideQuotaRequest(ctx, w.lead, within.ID, true, "", t0); err != nil {
			t.Fatalf("a lead approving the contract's limit = %v", err)
		}
		for name, c := range map[string]struct {
			kind   string
			change models.QuotaChange
			field  string
			says   string
		}{
			"limit":     {models.RequestLimit, models.QuotaChange{MaxGPUs: 13}, "max_gpus", "above the contract's 12"},
			"override":  {models.RequestOverride, models.QuotaChange{OverrideMaxGPUs: 20, OverrideBegins: ptr(t0.Add(time.Hour)), OverrideEnds: ptr(t0.Add(2 * time.Hour))}, "override_max_gpus", "above the contract's 12"},
			"guarantee": {models.RequestGuarantee, models.QuotaChange{GuaranteedGPUs: ptr(5)}, "guaranteed_gpus", "above the contract's 4"},
			"budget":    {models.RequestBudget, models.QuotaChange{AddCardHours: 101}, "add_card_hours", "a lead up to 100 more"},
		} {
			r := ask(c.kind, c.change)
			_, err := s.DecideQuotaRequest(ctx, w.lead, r.ID, true, "", t0)
			if !errors.Is(err, models.ErrForbidden) {
				t.Errorf("%s: a lead approving above the contract = %v, want ErrForbidden", name, err)
			}
			wantField(t, name, err, c.field, c.says)
			if _, err := s.DecideQuotaRequest(ctx, w.lead, r.ID, false, "ask an admin", t0); err != nil {
				t.Errorf("%s: the lead may still reject it: %v", name, err)
			}
		}
		above := ask(models.RequestGuarantee, models.QuotaChange{GuaranteedGPUs: ptr(6)})
		if _, err := s.DecideQuotaRequest(ctx, admin, above.ID, true, "", t0); err != nil {
			t.Fatalf("an admin approving above the contract = %v", err)
		}
		qs, _ := s.Quotas(ctx, w.project.ID)
		if q := qs[0]; q.GuaranteedGPUs != 6 || q.ContractGuaranteedGPUs != 6 || q.MaxGPUs != 12 || q.ContractMaxGPUs != 12 || q.ContractBudgetCardHours != 200 {
			t.Errorf("quota after the admin's approval = %+v, want guarantee and contract 6, limit 12 of 12, budget contract 200", q)
		}
		// A lead lowering the limit keeps the contract: raising it back is theirs again.
		down := ask(models.RequestLimit, models.QuotaChange{MaxGPUs: 8})
		up := ask(models.RequestLimit, models.QuotaChange{MaxGPUs: 12})
		for _, r := range []models.QuotaRequest{down, up} {
			if _, err := s.DecideQuotaRequest(ctx, w.lead, r.ID, true, "", t0); err != nil {
				t.Errorf("a lead moving the limit within the contract = %v", err)
			}
		}
	})
}

// Guarantees of a spec together never pass what its pools can reach, whoever sets them; a
// guarantee that does not grow is kept where the fleet shrank.
func TestGuaranteesWithinReach(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s) // 16 A100s; vision guaranteed 2
		nlp, _ := s.EnsureProject(ctx, "nlp", t0)
		q := models.Quota{ProjectID: nlp.ID, Spec: "A100-80G", MaxGPUs: models.MaxGPUCount, GuaranteedGPUs: models.MaxGPUCount,
			BudgetCardHours: 100, StartsAt: t0, EndsAt: t0.AddDate(0, 3, 0)}
		_, err := s.SetQuota(ctx, "admin", q, t0)
		wantField(t, "a guarantee of 100,000 cards", err, "guaranteed_gpus", "reach 16 GPUs", "2 of them are guaranteed", "14 left")
		q.GuaranteedGPUs = 14
		if _, err := s.SetQuota(ctx, "admin", q, t0); err != nil {
			t.Fatalf("a guarantee of what is left = %v", err)
		}
		// A pool that scales reaches its maximum: 4 nodes of 8 more.
		cfg := models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Enabled: true, MaxNodes: 4}
		if _, err := s.SavePoolConfig(ctx, "grow", cfg, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		r, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestGuarantee,
			models.QuotaChange{GuaranteedGPUs: ptr(8)}, "more", t0)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxNodes = 0 // the pool shrinks before the approval
		if _, err := s.SavePoolConfig(ctx, "grow", cfg, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		admin, _ := s.CreateUser(ctx, "ada", "pw-ada", models.RoleAdmin, t0)
		_, err = s.DecideQuotaRequest(ctx, admin, r.ID, true, "", t0)
		wantField(t, "approving a guarantee the fleet no longer reaches", err, "guaranteed_gpus", "reach 16 GPUs", "2 left")
		// The budget of a quota whose guarantee did not grow still changes.
		q.BudgetCardHours = 200
		if _, err := s.SetQuota(ctx, "admin", q, t0); err != nil {
			t.Errorf("an edit keeping the guarantee = %v", err)
		}
	})
}

// A project's bookings at any moment stay within its limit, and every project's bookings of
// a spec within what its pools reach.
func TestBookingsWithinCeilings(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s) // limit 8, 16 A100s
		at := func(h int) *time.Time { return ptr(t0.Add(time.Duration(h) * time.Hour)) }
		book := func(gpus, from, to int) error {
			r, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation,
				models.QuotaChange{ReserveGPUs: gpus, ReserveBegins: at(from), ReserveEnds: at(to)}, "peak", t0)
			if err != nil {
				return err
			}
			_, err = s.DecideQuotaRequest(ctx, w.lead, r.ID, true, "", t0)
			return err
		}
		if err := book(6, 24, 30); err != nil {
			t.Fatal(err)
		}
		if err := book(2, 26, 40); err != nil {
			t.Fatalf("a booking that fits beside it = %v", err)
		}
		wantField(t, "a booking past the limit", book(1, 29, 31), "reserve_gpus", "8 GPUs of its limit of 8 booked: 0 left")
		// The window is named in the zone it was asked in.
		sh, _ := time.LoadLocation("Asia/Shanghai")
		r, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation,
			models.QuotaChange{ReserveGPUs: 1, ReserveBegins: at(29), ReserveEnds: at(31), ReserveZone: "Asia/Shanghai"}, "peak", t0)
		wantField(t, "a booking past the limit asked in Shanghai", err, "reserve_gpus", "from "+at(29).In(sh).Format("2006-01-02 15:04")+" CST")
		if err := book(6, 30, 32); err != nil {
			t.Errorf("a booking starting as the first ends = %v", err)
		}
		// Another project books the rest of the fleet, then nobody more.
		nlp, _ := s.EnsureProject(ctx, "nlp", t0)
		s.SetMember(ctx, nlp.ID, w.member.ID, models.ProjectRoleMember)
		s.SetMember(ctx, nlp.ID, w.lead.ID, models.ProjectRoleLead)
		if _, err := s.SetQuota(ctx, "admin", models.Quota{ProjectID: nlp.ID, Spec: "A100-80G", MaxGPUs: 16, BudgetCardHours: 100,
			StartsAt: t0, EndsAt: t0.AddDate(0, 3, 0)}, t0); err != nil {
			t.Fatal(err)
		}
		r, err = s.CreateQuotaRequest(ctx, w.member, nlp.ID, "A100-80G", models.RequestReservation,
			models.QuotaChange{ReserveGPUs: 9, ReserveBegins: at(25), ReserveEnds: at(27)}, "peak", t0)
		wantField(t, "filing past the fleet's reach", err, "reserve_gpus", "reach 16 GPUs and 8 of them are booked: 8 left, got 9")
		r, err = s.CreateQuotaRequest(ctx, w.member, nlp.ID, "A100-80G", models.RequestReservation,
			models.QuotaChange{ReserveGPUs: 8, ReserveBegins: at(25), ReserveEnds: at(27)}, "peak", t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, r.ID, true, "", t0); err != nil {
			t.Errorf("booking what the fleet has left = %v", err)
		}
		if rs, _ := s.Reservations(ctx, t0, t0.AddDate(0, 0, 3)); len(rs) != 4 {
			t.Errorf("booked %d windows, want 4", len(rs))
		}
	})
}

// Migration 37 gives each quota its contract as it stands, and writes the 0 % a pool saved
// before the unused-booking rule has billed, so that only pools saved without it from now
// on take the default.
func TestContractsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	s, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := newQuotaWorld(t, s)
	for _, name := range []string{"old", "new"} {
		if _, err := s.SavePoolConfig(ctx, name, models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 2}, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"ALTER TABLE quotas DROP COLUMN contract_max_gpus", "ALTER TABLE quotas DROP COLUMN contract_guaranteed_gpus",
		"ALTER TABLE quotas DROP COLUMN contract_budget_card_hours", "DELETE FROM schema_version WHERE version = 37",
		`UPDATE pool_policies SET config = replace(config, ',"unused_booking_pct":null', '') WHERE pool_id = (SELECT id FROM pools WHERE name = 'old')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	if s, err = models.Open(ctx, path, models.Options{}); err != nil {
		t.Fatalf("open with migration 37 to apply: %v", err)
	}
	defer s.Close()
	qs, _ := s.Quotas(ctx, w.project.ID)
	if q := qs[0]; q.ContractMaxGPUs != 8 || q.ContractGuaranteedGPUs != 2 || q.ContractBudgetCardHours != 100 {
		t.Errorf("contract after migration 37 = %d, %d, %d; want the quota's 8, 2, 100", q.ContractMaxGPUs, q.ContractGuaranteedGPUs, q.ContractBudgetCardHours)
	}
	for name, want := range map[string]int{"old": 0, "new": models.DefaultUnusedBookingPct} {
		p, err := s.ConfiguredPoolByName(ctx, name)
		if err != nil || p.Config.UnusedBooking() != want {
			t.Errorf("pool %s bills unused booked hours at %d %% (%v), want %d %%", name, p.Config.UnusedBooking(), err, want)
		}
	}
}
