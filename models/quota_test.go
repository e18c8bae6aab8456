package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// quotaWorld is a project with a quota (8 A100s at once, 2 guaranteed, 100 card-hours; a lead
// may raise them to 12, 4 and 200), a member who asks and a lead who decides, and a node of
// 16 A100s.
type quotaWorld struct {
	s            *models.Store
	project      models.Project
	member, lead models.User
	quota        models.Quota
}

func newQuotaWorld(t *testing.T, s *models.Store) quotaWorld {
	t.Helper()
	ctx := context.Background()
	w := quotaWorld{s: s}
	w.project, _ = s.EnsureProject(ctx, "vision", t0)
	var err error
	if w.member, err = s.CreateUser(ctx, "mia", "pw-mia", models.RoleUser, t0); err != nil {
		t.Fatal(err)
	}
	w.lead, _ = s.CreateUser(ctx, "li", "pw-li", models.RoleUser, t0)
	if err := s.SetMember(ctx, w.project.ID, w.member.ID, models.ProjectRoleMember); err != nil {
		t.Fatal(err)
	}
	s.SetMember(ctx, w.project.ID, w.lead.ID, models.ProjectRoleLead)
	// The fleet the quota's guarantee and bookings are promised from: 16 A100s.
	modelstest.Node("qw-a100").Pool("qw").A100s(16).Register(t, s, t0)
	w.quota, err = s.SetQuota(ctx, "admin", models.Quota{ProjectID: w.project.ID, Spec: "A100-80G", MaxGPUs: 8, GuaranteedGPUs: 2,
		BudgetCardHours: 100, StartsAt: t0, EndsAt: t0.Add(90 * 24 * time.Hour),
		ContractMaxGPUs: 12, ContractGuaranteedGPUs: 4, ContractBudgetCardHours: 200}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestQuotaRequestApproval(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		req, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestBudget,
			models.QuotaChange{AddCardHours: 50}, "deadline <script>alert(1)</script>", t0)
		if err != nil {
			t.Fatalf("CreateQuotaRequest = %v", err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.member, req.ID, true, "", t0); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("deciding one's own request = %v, want ErrForbidden", err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, req.ID, true, "ok <b>go</b>", t0.Add(time.Hour)); err != nil {
			t.Fatalf("DecideQuotaRequest = %v", err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, req.ID, false, "", t0.Add(time.Hour)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("a second decision = %v, want ErrConflict", err)
		}
		qs, _ := s.Quotas(ctx, w.project.ID)
		if qs[0].BudgetCardHours != 150 {
			t.Errorf("budget after approval = %d, want 150", qs[0].BudgetCardHours)
		}
		rows, _ := s.QuotaRequests(ctx, []int64{w.project.ID}, "")
		if len(rows) != 1 || rows[0].State != models.RequestApproved || rows[0].Comment != "ok <b>go</b>" || rows[0].Requester != "mia" {
			t.Errorf("QuotaRequests = %+v", rows)
		}
		// The member hears of the decision; the lead heard of the request.
		if n, _ := s.Notifications(ctx, w.member.ID, 10); len(n) != 1 || n[0].Kind != "request-approved" {
			t.Errorf("member notifications = %+v", n)
		}
		if n, _ := s.Notifications(ctx, w.lead.ID, 10); len(n) != 1 || n[0].Kind != "request-pending" {
			t.Errorf("lead notifications = %+v", n)
		}
		log, _ := s.AuditLog(ctx, models.AuditFilter{ProjectIDs: []int64{w.project.ID}})
		var actions []string
		for _, e := range log {
			actions = append(actions, e.Action)
		}
		if len(actions) != 4 { // quota set, request, quota change, approve
			t.Errorf("audit actions = %v, want 4", actions)
		}
	})
}

func TestQuotaRequestRejectsBadInput(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	w := newQuotaWorld(t, s)
	later := t0.Add(24 * time.Hour)
	end := t0.Add(48 * time.Hour)
	earlier := t0.Add(-24 * time.Hour)
	// An override from 1 to 2 days ahead is pending: another overlapping one is refused.
	if _, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestOverride,
		models.QuotaChange{OverrideMaxGPUs: 16, OverrideBegins: &later, OverrideEnds: &end}, "burst", t0); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		project int64
		spec    string
		kind    string
		change  models.QuotaChange
		reason  string
		field   string
	}{
		"zero limit":        {w.project.ID, "A100-80G", models.RequestLimit, models.QuotaChange{MaxGPUs: 0}, "r", "max_gpus"},
		"negative budget":   {w.project.ID, "A100-80G", models.RequestBudget, models.QuotaChange{AddCardHours: -5}, "r", "add_card_hours"},
		"end before":        {w.project.ID, "A100-80G", models.RequestExtend, models.QuotaChange{EndsAt: &earlier}, "r", "ends_at"},
		"override reversed": {w.project.ID, "A100-80G", models.RequestOverride, models.QuotaChange{OverrideMaxGPUs: 9, OverrideBegins: &end, OverrideEnds: &later}, "r", "override_ends"},
		"overlapping":       {w.project.ID, "A100-80G", models.RequestOverride, models.QuotaChange{OverrideMaxGPUs: 9, OverrideBegins: &later, OverrideEnds: &end}, "r", "override_begins"},
		"unknown project":   {999, "A100-80G", models.RequestLimit, models.QuotaChange{MaxGPUs: 4}, "r", "project"},
		"no such quota":     {w.project.ID, "H800-80G", models.RequestLimit, models.QuotaChange{MaxGPUs: 4}, "r", "spec"},
		"no reason":         {w.project.ID, "A100-80G", models.RequestLimit, models.QuotaChange{MaxGPUs: 4}, "", "reason"},
		"bad kind":          {w.project.ID, "A100-80G", "grow", models.QuotaChange{}, "r", "kind"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.CreateQuotaRequest(ctx, w.member, tc.project, tc.spec, tc.kind, tc.change, tc.reason, t0)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("CreateQuotaRequest = %v, want a FieldError on %q", err, tc.field)
			}
		})
	}
	if rows, _ := s.QuotaRequests(ctx, nil, ""); len(rows) != 1 {
		t.Errorf("%d requests stored, want only the first", len(rows))
	}
	bad := map[string]models.Quota{
		"max_gpus":          {ProjectID: w.project.ID, MaxGPUs: 0, BudgetCardHours: 1, StartsAt: t0, EndsAt: end},
		"budget_card_hours": {ProjectID: w.project.ID, MaxGPUs: 1, BudgetCardHours: -1, StartsAt: t0, EndsAt: end},
		"ends_at":           {ProjectID: w.project.ID, MaxGPUs: 1, BudgetCardHours: 1, StartsAt: end, EndsAt: t0},
		"guaranteed_gpus":   {ProjectID: w.project.ID, MaxGPUs: 1, GuaranteedGPUs: 2, BudgetCardHours: 1, StartsAt: t0, EndsAt: end},
		"project":           {ProjectID: 999, MaxGPUs: 1, BudgetCardHours: 1, StartsAt: t0, EndsAt: end},
	}
	for field, q := range bad {
		_, err := s.SetQuota(ctx, "admin", q, t0)
		var fe *models.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("SetQuota(bad %s) = %v, want a FieldError on it", field, err)
		}
	}
}

func TestLoginAndTokens(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		u, err := s.CreateUser(ctx, "ana", "correct horse", models.RoleAdmin, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, "ana", "wrong"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("wrong password = %v, want ErrNotFound", err)
		}
		if _, err := s.Authenticate(ctx, "nobody", "x"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown user = %v, want ErrNotFound", err)
		}
		lim := models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour}
		tok, err := s.CreateSession(ctx, u.ID, lim, t0)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.SessionUser(ctx, tok, lim, t0.Add(50*time.Minute)); err != nil || got.ID != u.ID {
			t.Errorf("SessionUser within idle = %v, %v", got.Name, err)
		}
		if _, err := s.SessionUser(ctx, tok, lim, t0.Add(50*time.Minute+2*time.Hour)); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("SessionUser after idle expiry = %v, want ErrNotFound", err)
		}
		api, row, err := s.CreateAPIToken(ctx, u.ID, "ci", models.ScopeRead, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, got, err := s.TokenUser(ctx, api, t0.Add(time.Hour)); err != nil || got.Scope != models.ScopeRead {
			t.Errorf("TokenUser = %+v, %v", got, err)
		}
		if toks, _ := s.APITokens(ctx, u.ID); len(toks) != 1 || toks[0].LastUsedAt == nil || toks[0].TokenHash == api {
			t.Errorf("APITokens = %+v, want last use recorded and only a hash stored", toks)
		}
		s.RevokeAPIToken(ctx, u.ID, row.ID, t0)
		if _, _, err := s.TokenUser(ctx, api, t0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("revoked token = %v, want ErrNotFound", err)
		}
	})
}
