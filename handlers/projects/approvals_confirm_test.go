package projects_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestApprovalsAskFirst: approving and rejecting each ask first, without JavaScript: the
// approve button opens a question that states the change and what it costs at current
// prices; the reject button one that states the change and asks why. Neither decides in the
// page as it comes: both are closed.
func TestApprovalsAskFirst(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	for lang, want := range map[string][]string{
		"en": {"Approve request #1 for vision · A100-80G: Guaranteed share: 2 GPUs? It applies at once. At current prices: ¥21,330.00 if fully used until the month ends.",
			"Reject request #1 for vision · A100-80G: Guaranteed share: 2 GPUs? Say why; member reads it."},
		"zh-CN": {"批准申请 #1（vision · A100-80G）：保障卡数: 2 卡？批准后立即生效。按当前价格：¥21,330.00 若用满至月底。",
			"驳回申请 #1（vision · A100-80G）：保障卡数: 2 卡？请写明理由，member 会看到。"},
	} {
		doc := webtest.DocOf(t, w.Get("/approvals", append(webtest.Bearer(w.Tokens["lead"]), "Accept-Language", lang)...).Result())
		row := doc.Find(`[data-testid=request-row][data-state=pending]`)
		for i, step := range []string{"approve", "reject"} {
			ask := row.Find(`details.confirm-step[data-testid=` + step + `-ask]`)
			if ask.Length() != 1 {
				t.Fatalf("%s: no %s question", lang, step)
			}
			if _, open := ask.Attr("open"); open {
				t.Errorf("%s: the %s question is open before it is asked", lang, step)
			}
			if got := strings.Join(strings.Fields(ask.Find(`[data-testid=`+step+`-question]`).Text()), " "); got != want[i] {
				t.Errorf("%s %s question = %q, want %q", lang, step, got, want[i])
			}
		}
		if row.Find(`[data-testid=reject-form] textarea[name=reason]`).Length() != 1 {
			t.Errorf("%s: the reject question asks no reason", lang)
		}
	}
}

// TestRejectNeedsAReason: a rejection without a reason is refused where it is written (the
// store): 422 naming reason from the API and from the page, which comes back with the reject
// question open, the problem in it and the cursor on the reason; the request stays pending.
// With a reason it is rejected and the requester reads it.
func TestRejectNeedsAReason(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	lead := webtest.Bearer(w.Tokens["lead"])
	path := "/api/v1/requests/" + webtest.IDStr(w.Request.ID) + "/reject"
	for _, body := range []string{`{}`, `{"reason":"  "}`, `{"comment":""}`} {
		r := w.Post(path, body, lead...)
		var e api.Error
		if err := json.Unmarshal(r.Body.Bytes(), &e); err != nil || r.Code != http.StatusUnprocessableEntity || e.Field != "reason" {
			t.Errorf("POST reject %s = %d %s, want 422 naming reason", body, r.Code, r.Body)
		}
	}
	page := "/approvals/" + webtest.IDStr(w.Request.ID)
	r := w.Form(page, url.Values{"decision": {"reject"}, "reason": {""}}, lead...)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("reject from the page without a reason = %d, want 422", r.StatusCode)
	}
	doc := webtest.DocOf(t, r)
	ask := doc.Find(`[data-testid=reject-ask]`)
	if _, open := ask.Attr("open"); !open {
		t.Error("the reject question is not open again")
	}
	if got := ask.Find(`[data-testid=reject-error]`); got.AttrOr("data-field", "") != "reason" || !strings.HasPrefix(got.Text(), "Reason: ") {
		t.Errorf("the refusal = %q on %q, want it to name the reason", got.Text(), got.AttrOr("data-field", ""))
	}
	if _, focus := ask.Find(`textarea[name=reason]`).Attr("autofocus"); !focus {
		t.Error("the cursor is not on the reason")
	}
	if req := requestOf(t, w); req.State != models.RequestPending {
		t.Fatalf("the request is %s after a refused rejection, want pending", req.State)
	}
	r = w.Form(page, url.Values{"decision": {"reject"}, "reason": {"two cards are enough for the deadline"}}, lead...)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject with a reason = %d, want 303", r.StatusCode)
	}
	if req := requestOf(t, w); req.State != models.RequestRejected || req.Comment != "two cards are enough for the deadline" {
		t.Errorf("request = %s %q, want rejected with the reason", req.State, req.Comment)
	}
}

// requestOf is the world's request as stored.
func requestOf(t *testing.T, w webtest.ApprovalWorld) models.QuotaRequestRow {
	t.Helper()
	rows, err := w.Store.QuotaRequests(context.Background(), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID == w.Request.ID {
			return r
		}
	}
	t.Fatalf("no request %d", w.Request.ID)
	return models.QuotaRequestRow{}
}

// TestRequestWaitingOnIt: a request lists as waiting on it only the tasks approving it would
// start: more card-hours those waiting on the budget, a higher limit those waiting on the
// card limit that it makes room for. The world's eval task needs both cards under a limit of
// two that train holds.
func TestRequestWaitingOnIt(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	member, _ := w.Store.UserByName(ctx, "member")
	file := func(kind string, c models.QuotaChange) int64 {
		t.Helper()
		req, err := w.Store.CreateQuotaRequest(ctx, member, vision.ID, "A100-80G", kind, c, "more", webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		return req.ID
	}
	hours, three, four := file(models.RequestBudget, models.QuotaChange{AddCardHours: 500}),
		file(models.RequestLimit, models.QuotaChange{MaxGPUs: 3}), file(models.RequestLimit, models.QuotaChange{MaxGPUs: 4})
	waiting := func() map[int64][]string {
		doc := webtest.DocOf(t, w.Get("/approvals", webtest.Bearer(w.Tokens["lead"])...).Result())
		out := map[int64][]string{}
		for _, id := range []int64{hours, three, four} {
			doc.Find(`[data-testid=request-row][data-id="` + webtest.IDStr(id) + `"] [data-testid=ctx-waiting-task]`).Each(func(_ int, s *goquery.Selection) {
				out[id] = append(out[id], strings.TrimSpace(s.Text()))
			})
		}
		return out
	}
	eval := []string{"#" + webtest.IDStr(w.Waiting.ID) + " eval"}
	// eval waits on the card limit: 500 more card-hours or a third card start nothing.
	if diff := cmp.Diff(map[int64][]string{four: eval}, waiting()); diff != "" {
		t.Errorf("waiting on the card limit: tasks listed per request (-want +got):\n%s", diff)
	}
	// With the month's budget spent (4 card-hours used), eval waits on the budget.
	if _, err := w.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 4,
		StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(1, 0, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int64][]string{hours: eval}, waiting()); diff != "" {
		t.Errorf("waiting on the budget: tasks listed per request (-want +got):\n%s", diff)
	}
}
