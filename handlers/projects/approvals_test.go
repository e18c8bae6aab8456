package projects_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/web/webtest"
)

func TestApprovalsContext(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	doc := webtest.DocOf(t, w.Get("/approvals", webtest.Bearer(w.Tokens["lead"])...).Result())
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
	if href, _ := row.Find(`[data-testid=ctx-waiting-task]`).Attr("href"); href != "/tasks/"+webtest.IDStr(w.Waiting.ID) {
		t.Errorf("waiting task link = %q, want /tasks/%d", href, w.Waiting.ID)
	}
	if !strings.Contains(row.Find(`[data-testid=request-row] td`).Eq(2).Text()+row.Text(), "Guaranteed share: 2 GPUs") {
		t.Errorf("the request's change is not in words: %q", row.Text())
	}
	// The member sees their request, without the context or a decision form.
	doc = webtest.DocOf(t, w.Get("/projects", webtest.Bearer(w.Tokens["member"])...).Result())
	if doc.Find(`[data-testid=ctx-current]`).Length() != 0 || doc.Find(`[data-testid=decide-form]`).Length() != 0 {
		t.Error("the member's page shows the decider's context")
	}
}

func TestApprovalsNavCount(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	count := func(who string) string {
		rec := w.Login(who, "pw-"+who, "10.0.0.9")
		var cookie string
		for _, ck := range rec.Result().Cookies() {
			if ck.Name == "kashi_session" {
				cookie = ck.Name + "=" + ck.Value
			}
		}
		doc, err := goquery.NewDocumentFromReader(w.Get("/", "Cookie", cookie, "Authorization", "").Body)
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
	if r := w.Post("/api/v1/requests/"+webtest.IDStr(w.Request.ID)+"/approve", `{}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	if got := count("lead"); got != "" {
		t.Errorf("the lead's pending count after deciding = %q, want none", got)
	}
}

func TestGuaranteeAndOverflowRequestForms(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	for name, c := range map[string]struct {
		kind, value string
		want        int
		asked       string
	}{
		"guarantee one":          {"guarantee", "1", http.StatusSeeOther, "Guaranteed share: 1 GPU"},
		"guarantee over limit":   {"guarantee", "3", http.StatusUnprocessableEntity, ""},
		"guarantee a word":       {"guarantee", "all", http.StatusUnprocessableEntity, ""},
		"overflow at ¥30":        {"overflow", "30", http.StatusSeeOther, "Allow overflow: allowed at ¥30.00 a card-hour"},
		"overflow at list price": {"overflow", "", http.StatusSeeOther, "Allow overflow: at the price list's rate"},
		"overflow a bad rate":    {"overflow", "1.234", http.StatusUnprocessableEntity, ""},
	} {
		r := w.Form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {c.kind},
			"value": {c.value}, "reason": {"because"}}, webtest.Bearer(w.Tokens["member"])...)
		r.Body.Close()
		if r.StatusCode != c.want {
			t.Errorf("%s: request form = %d, want %d", name, r.StatusCode, c.want)
			continue
		}
		if c.asked == "" {
			continue
		}
		doc := webtest.DocOf(t, w.Get("/approvals", webtest.Bearer(w.Tokens["lead"])...).Result())
		found := false
		doc.Find(`[data-testid=request-row]`).Each(func(_ int, s *goquery.Selection) {
			found = found || strings.Contains(s.Text(), c.asked)
		})
		if !found {
			t.Errorf("%s: no request reads %q", name, c.asked)
		}
	}
	// The API takes both kinds too; approval applies them.
	r := w.Post("/api/v1/requests", `{"project":"vision","spec":"A100-80G","kind":"overflow","change":{"overflow_allowed":true,"overflow_rate_fen":2000},"reason":"burst"}`,
		webtest.Bearer(w.Tokens["member"])...)
	req := webtest.Decode[struct{ ID int64 }](t, r)
	if r.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests overflow = %d", r.Code)
	}
	if r := w.Post("/api/v1/requests/"+webtest.IDStr(req.ID)+"/approve", `{}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	p, _ := w.Store.ProjectByName(context.Background(), "vision")
	if qs, _ := w.Store.Quotas(context.Background(), p.ID); !qs[0].OverflowAllowed || qs[0].OverflowRateFen != 2000 {
		t.Errorf("quota after approving overflow = %+v", qs[0])
	}
}
