package projects_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// problemsOf is the fields a refused form's page names (data-field of each testid), in order,
// and the input that has the cursor (autofocus).
func problemsOf(doc *goquery.Document, testid string) (fields []string, focus string) {
	doc.Find(`[data-testid=` + testid + `]`).Each(func(_ int, s *goquery.Selection) {
		fields = append(fields, s.AttrOr("data-field", ""))
	})
	return fields, doc.Find(`[autofocus]`).AttrOr("name", "")
}

// TestProjectFormsNameEveryProblem: the quota, add-project and request forms (a card-hour
// request, a reservation) name every bad field at once (422), the cursor on the first, and
// nothing is stored.
func TestProjectFormsNameEveryProblem(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	vision, err := w.Store.ProjectByName(t.Context(), "vision")
	if err != nil {
		t.Fatal(err)
	}
	quotas := "/projects/" + webtest.IDStr(vision.ID) + "/quotas"
	before, err := w.Store.QuotaRequests(t.Context(), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	member := webtest.Bearer(w.Tokens["member"])
	for _, tc := range []struct {
		name, path, testid string
		hdr                []string
		form               url.Values
		fields             []string
		focus              string
	}{
		{"quota", quotas, "admin-error", nil,
			url.Values{"spec": {"A100-80G"}, "max_gpus": {"0"}, "guaranteed_gpus": {"x"}, "budget_card_hours": {"-1"},
				"starts_at": {"2026-03-01"}, "ends_at": {"2026-02-01"}, "remind_budget_pcts": {"x"}},
			[]string{"max_gpus", "guaranteed_gpus", "budget_card_hours", "ends_at", "remind_budget_pcts"}, "max_gpus"},
		{"add project", "/projects", "project-create-error", nil,
			url.Values{"name": {"a/b"}, "tags": {"<b>"}},
			[]string{"name", "tags"}, "name"},
		{"card-hours", "/projects/requests", "request-error", member,
			url.Values{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"budget"}, "value": {"lots"}, "reason": {""}},
			[]string{"value", "reason"}, "value"},
		{"reservation", "/projects/requests", "request-error", member,
			url.Values{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"reservation"}, "value": {"two"},
				"begins": {""}, "ends": {"2026-03-03T18:00"}, "reason": {" "}},
			[]string{"value", "begins", "reason"}, "value"},
		{"reservation over the limit", "/projects/requests", "request-error", member,
			url.Values{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"reservation"}, "value": {"3"},
				"begins": {"2026-03-03T09:00"}, "ends": {"2026-03-03T18:00"}, "reason": {""}},
			[]string{"value", "reason"}, "value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.Form(tc.path, tc.form, tc.hdr...)
			if r.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s = %d, want 422", tc.path, r.StatusCode)
			}
			fields, focus := problemsOf(webtest.DocOf(t, r), tc.testid)
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("fields named (-want +got):\n%s", diff)
			}
			if focus != tc.focus {
				t.Errorf("the cursor is on %q, want %q", focus, tc.focus)
			}
		})
	}
	if rows, err := w.Store.QuotaRequests(t.Context(), nil, ""); err != nil || len(rows) != len(before) {
		t.Errorf("refused requests stored %d (%v)", len(rows)-len(before), err)
	}
}

// TestRequestAPINamesEveryProblem: the request API's 422 names the reason and the change
// together.
func TestRequestAPINamesEveryProblem(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	r := w.Post("/api/v1/requests", `{"project":"vision","spec":"A100-80G","kind":"limit","change":{"max_gpus":0},"reason":""}`,
		webtest.Bearer(w.Tokens["member"])...)
	if r.Code != http.StatusUnprocessableEntity {
		t.Fatalf("POST /api/v1/requests = %d %s, want 422", r.Code, r.Body)
	}
	var e api.Error
	if err := json.Unmarshal(r.Body.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, fe := range e.Errors {
		fields = append(fields, fe.Field)
	}
	if diff := cmp.Diff([]string{"reason", "max_gpus"}, fields); diff != "" || e.Field != "reason" {
		t.Errorf("errors (-want +got):\n%s; field %q", diff, e.Field)
	}
}

// TestRemoveMemberAsksFirst: removing a member looks destructive and asks first, without
// JavaScript: the card's button opens a question naming the member and the project.
func TestRemoveMemberAsksFirst(t *testing.T) {
	w := webtest.NewBillWorld(t)
	doc := webtest.DocOf(t, w.Get("/projects").Result())
	row := doc.Find(`[data-project=vision] [data-testid=member-row][data-user=member]`)
	ask := row.Find(`details.confirm-step[data-testid=member-remove-ask]`)
	if ask.Length() != 1 || ask.Find(`summary`).AttrOr("class", "") != "danger" {
		t.Fatalf("member's row: no destructive button that asks first")
	}
	if q := ask.Find(`.confirm-body p`).Text(); q != "Remove member from vision?" {
		t.Errorf("the question = %q", q)
	}
	if ask.Find(`form button.danger[data-testid=member-remove]`).Length() != 1 {
		t.Error("no destructive remove button inside the question")
	}
}
