// The approval tests' world: a quota request to approve or refuse, with a task waiting on it.

package webtest

import (
	"context"
	"testing"
	"time"

	"kashi/models"
)

// ApprovalWorld is vision with a lead and a member, an A100 quota of 2 GPUs at once with
// nothing guaranteed, a price of ¥15 a card-hour, a task holding both cards and one waiting
// on the quota, and the member's pending request to guarantee both cards.
type ApprovalWorld struct {
	*Server
	Tokens  map[string]string   // "lead" and "member" → API token
	Waiting models.Task         // the task waiting on the quota
	Request models.QuotaRequest // the member's pending request
}

// NewApprovalWorld builds an ApprovalWorld over a fresh server.
func NewApprovalWorld(t *testing.T) ApprovalWorld {
	t.Helper()
	ctx := context.Background()
	s := NewServer(t)
	s.Projects("vision")
	w := ApprovalWorld{Server: s, Tokens: map[string]string{}}
	s.Register(Node("n1").InPool("a100").Cards(A100Name, A100MiB, 4))
	p, _ := s.Store.ProjectByName(ctx, "vision")
	users := map[string]models.User{}
	for _, u := range []struct{ name, role string }{{"lead", models.ProjectRoleLead}, {"member", models.ProjectRoleMember}} {
		user, err := s.Store.CreateUser(ctx, u.name, "pw-"+u.name, models.RoleUser, T0)
		if err != nil {
			t.Fatal(err)
		}
		s.Store.SetMember(ctx, p.ID, user.ID, u.role)
		w.Tokens[u.name], _, _ = s.Store.CreateAPIToken(ctx, user.ID, "test", models.ScopeWrite, T0)
		users[u.name] = user
	}
	_, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 2, BudgetCardHours: 1000,
		StartsAt: T0.AddDate(0, -1, 0), EndsAt: T0.AddDate(1, 0, 0), ContractGuaranteedGPUs: 2}, T0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, T0); err != nil {
		t.Fatal(err)
	}
	running := s.Create(Task("train").Spec("A100-80G").GPUs(2).Ready(), T0.Add(-3*time.Hour))
	s.Place(running, T0.Add(-2*time.Hour), UUIDOf("n1", 0), UUIDOf("n1", 1))
	w.Waiting = s.Create(Task("eval").Spec("A100-80G").GPUs(2).Ready(), T0.Add(-time.Hour))
	two := 2
	w.Request, err = s.Store.CreateQuotaRequest(ctx, users["member"], p.ID, "A100-80G", models.RequestGuarantee,
		models.QuotaChange{GuaranteedGPUs: &two}, "paper deadline: keep both cards", T0.Add(-90*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return w
}
