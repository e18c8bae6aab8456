package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
)

// approvalWorld is vision with a lead and a member, an A100 quota of 2 GPUs at once with
// nothing guaranteed, a price of ¥15 a card-hour, a task holding both cards and one waiting
// on the quota, and the member's pending request to guarantee both cards.
type approvalWorld struct {
	*server
	tokens  map[string]string
	waiting models.Task
	request models.QuotaRequest
}

func newApprovalWorld(t *testing.T) approvalWorld {
	t.Helper()
	ctx := context.Background()
	s := newServer(t)
	s.projects("vision")
	w := approvalWorld{server: s, tokens: map[string]string{}}
	s.register(node("n1").inPool("a100").cards(a100Name, a100MiB, 4))
	p, _ := s.store.ProjectByName(ctx, "vision")
	users := map[string]models.User{}
	for _, u := range []struct{ name, role string }{{"lead", models.ProjectRoleLead}, {"member", models.ProjectRoleMember}} {
		user, err := s.store.CreateUser(ctx, u.name, "pw-"+u.name, models.RoleUser, t0)
		if err != nil {
			t.Fatal(err)
		}
		s.store.SetMember(ctx, p.ID, user.ID, u.role)
		w.tokens[u.name], _, _ = s.store.CreateAPIToken(ctx, user.ID, "test", models.ScopeWrite, t0)
		users[u.name] = user
	}
	_, err := s.store.SetQuota(ctx, "tester", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 2, BudgetCardHours: 1000,
		StartsAt: t0.AddDate(0, -1, 0), EndsAt: t0.AddDate(1, 0, 0)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, t0); err != nil {
		t.Fatal(err)
	}
	running := s.create(task("train").spec("A100-80G").gpus(2).ready(), t0.Add(-3*time.Hour))
	s.place(running, t0.Add(-2*time.Hour), uuidOf("n1", 0), uuidOf("n1", 1))
	w.waiting = s.create(task("eval").spec("A100-80G").gpus(2).ready(), t0.Add(-time.Hour))
	two := 2
	w.request, err = s.store.CreateQuotaRequest(ctx, users["member"], p.ID, "A100-80G", models.RequestGuarantee,
		models.QuotaChange{GuaranteedGPUs: &two}, "paper deadline: keep both cards", t0.Add(-90*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestApprovalsContext(t *testing.T) {
	w := newApprovalWorld(t)
	doc := docOf(t, w.get("/approvals", bearer(w.tokens["lead"])...).Result())
	row := doc.Find(`[data-testid=request-row][data-state=pending]`)
	text := func(id string) string {
		return strings.Join(strings.Fields(row.Find(`[data-testid=`+id+`]`).Text()), " ")
	}
	// Both cards for the rest of March (from 09:00 on the 2nd: 711 h) at ¥15.
	for id, want := range map[string]string{
		"ctx-current": "0 GPUs", "ctx-requested": "2 GPUs", "ctx-diff": "+2 GPUs", "ctx-use-now": "2 of 2 GPUs",
		"ctx-month": "4 of 1,000 card-hours", "ctx-cost": "¥21,330.00 if fully used until the month ends", "ctx-age": "1h 30m",
	} {
		if got := text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if href, _ := row.Find(`[data-testid=ctx-waiting-task]`).Attr("href"); href != "/tasks/"+itoa(w.waiting.ID) {
		t.Errorf("waiting task link = %q, want /tasks/%d", href, w.waiting.ID)
	}
	if !strings.Contains(row.Find(`[data-testid=request-row] td`).Eq(2).Text()+row.Text(), "Guaranteed share: 2 GPUs") {
		t.Errorf("the request's change is not in words: %q", row.Text())
	}
	// The member sees their request, without the context or a decision form.
	doc = docOf(t, w.get("/projects", bearer(w.tokens["member"])...).Result())
	if doc.Find(`[data-testid=ctx-current]`).Length() != 0 || doc.Find(`[data-testid=decide-form]`).Length() != 0 {
		t.Error("the member's page shows the decider's context")
	}
}

func TestApprovalsNavCount(t *testing.T) {
	w := newApprovalWorld(t)
	count := func(who string) string {
		rec := w.login(who, "pw-"+who, "10.0.0.9")
		var cookie string
		for _, ck := range rec.Result().Cookies() {
			if ck.Name == "kashi_session" {
				cookie = ck.Name + "=" + ck.Value
			}
		}
		doc, err := goquery.NewDocumentFromReader(w.get("/", "Cookie", cookie, "Authorization", "").Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc.Find(`[data-testid=nav-pending]`).Text()
	}
	if got := count("lead"); got != "1" {
		t.Errorf("the lead's pending count = %q, want 1", got)
	}
	if got := count("member"); got != "" {
		t.Errorf("the member's pending count = %q, want none", got)
	}
	if r := w.post("/api/v1/requests/"+itoa(w.request.ID)+"/approve", `{}`, bearer(w.tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	if got := count("lead"); got != "" {
		t.Errorf("the lead's pending count after deciding = %q, want none", got)
	}
}

func TestGuaranteeAndOverflowRequestForms(t *testing.T) {
	w := newApprovalWorld(t)
	for name, c := range map[string]struct {
		kind, value string
		want        int
		asked       string
	}{
		"guarantee one":          {"guarantee", "1", http.StatusSeeOther, "Guaranteed share: 1 GPUs"},
		"guarantee over limit":   {"guarantee", "3", http.StatusUnprocessableEntity, ""},
		"guarantee a word":       {"guarantee", "all", http.StatusUnprocessableEntity, ""},
		"overflow at ¥30":        {"overflow", "30", http.StatusSeeOther, "Allow overflow: allowed at ¥30.00 a card-hour"},
		"overflow at list price": {"overflow", "", http.StatusSeeOther, "Allow overflow: at the price list's rate"},
		"overflow a bad rate":    {"overflow", "1.234", http.StatusUnprocessableEntity, ""},
	} {
		r := w.form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {c.kind},
			"value": {c.value}, "reason": {"because"}}, bearer(w.tokens["member"])...)
		r.Body.Close()
		if r.StatusCode != c.want {
			t.Errorf("%s: request form = %d, want %d", name, r.StatusCode, c.want)
			continue
		}
		if c.asked == "" {
			continue
		}
		doc := docOf(t, w.get("/approvals", bearer(w.tokens["lead"])...).Result())
		found := false
		doc.Find(`[data-testid=request-row]`).Each(func(_ int, s *goquery.Selection) {
			found = found || strings.Contains(s.Text(), c.asked)
		})
		if !found {
			t.Errorf("%s: no request reads %q", name, c.asked)
		}
	}
	// The API takes both kinds too; approval applies them.
	r := w.post("/api/v1/requests", `{"project":"vision","spec":"A100-80G","kind":"overflow","change":{"overflow_allowed":true,"overflow_rate_fen":2000},"reason":"burst"}`,
		bearer(w.tokens["member"])...)
	req := decode[struct{ ID int64 }](t, r)
	if r.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests overflow = %d", r.Code)
	}
	if r := w.post("/api/v1/requests/"+itoa(req.ID)+"/approve", `{}`, bearer(w.tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	p, _ := w.store.ProjectByName(context.Background(), "vision")
	if qs, _ := w.store.Quotas(context.Background(), p.ID); !qs[0].OverflowAllowed || qs[0].OverflowRateFen != 2000 {
		t.Errorf("quota after approving overflow = %+v", qs[0])
	}
}
