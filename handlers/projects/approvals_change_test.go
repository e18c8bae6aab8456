package projects_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestApprovedRequestLinksItsChange: once the lead approves the member's request, the
// approvals page's decided row links to the page of the quota change it made, which opens;
// a rejected request, which changed nothing, links nowhere.
func TestApprovedRequestLinksItsChange(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	ctx := context.Background()
	lead, err := w.Store.UserByName(ctx, "lead")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Store.DecideQuotaRequest(ctx, lead, w.Request.ID, true, "", webtest.T0); err != nil {
		t.Fatal(err)
	}
	member, err := w.Store.UserByName(ctx, "member")
	if err != nil {
		t.Fatal(err)
	}
	refused, err := w.Store.CreateQuotaRequest(ctx, member, w.Request.ProjectID, "A100-80G", models.RequestLimit,
		models.QuotaChange{MaxGPUs: 3}, "more", webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Store.DecideQuotaRequest(ctx, lead, refused.ID, false, "not now", webtest.T0); err != nil {
		t.Fatal(err)
	}
	edits, err := w.Store.QuotaEdits(ctx, w.Request.ProjectID, time.Time{}, time.Time{})
	if err != nil || len(edits) != 2 || edits[0].RequestID != w.Request.ID || edits[1].RequestID != 0 {
		t.Fatalf("vision's quota edits = %+v, %v; want the tester's, then one made by request %d", edits, err, w.Request.ID)
	}
	want := "/projects/" + strconv.FormatInt(w.Request.ProjectID, 10) + "/quota-changes/" + strconv.FormatInt(edits[0].ID, 10)
	for _, lang := range []string{"en", "zh-CN"} {
		doc := webtest.DocOf(t, w.Get("/approvals", append(webtest.Bearer(w.Tokens["lead"]), "Accept-Language", lang)...).Result())
		approved := doc.Find(`[data-testid=request-row][data-id="` + strconv.FormatInt(w.Request.ID, 10) + `"]`)
		if got := approved.Find(`a[data-testid=request-change]`).AttrOr("href", ""); got != want {
			t.Errorf("%s: the approved request links %q, want %q", lang, got, want)
		}
		if doc.Find(`[data-testid=request-row][data-id="`+strconv.FormatInt(refused.ID, 10)+`"] [data-testid=request-change]`).Length() != 0 {
			t.Errorf("%s: the rejected request links a change", lang)
		}
	}
	if r := w.Get(want, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK {
		t.Errorf("GET %s as the lead = %d", want, r.Code)
	}
}
