package projects_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

func TestProjectAdminForms(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	nlp, _ := w.Store.ProjectByName(ctx, "nlp")
	path := func(p models.Project, what string) string { return "/projects/" + webtest.IDStr(p.ID) + "/" + what }

	doc := webtest.DocOf(t, w.Get("/projects").Result())
	if doc.Find(`[data-testid=project-create-form]`).Length() != 1 || doc.Find(`[data-testid=quota-form][data-new=true]`).Length() != 2 ||
		doc.Find(`[data-testid=archive-form]`).Length() != 2 {
		t.Error("the admin's page lacks the create form, a new quota form or an archive button per project")
	}
	doc = webtest.DocOf(t, w.Get("/projects", webtest.Bearer(w.Tokens["lead"])...).Result())
	if doc.Find(`[data-project=nlp] [data-testid=project-admin]`).Length() != 1 || doc.Find(`[data-testid=quota-form]`).Length() != 0 ||
		doc.Find(`[data-testid=archive-form]`).Length() != 0 || doc.Find(`[data-testid=project-create-form]`).Length() != 0 {
		t.Error("the lead of nlp should edit its tags and members only")
	}
	if n := webtest.DocOf(t, w.Get("/projects", webtest.Bearer(w.Tokens["member"])...).Result()).Find(`[data-testid=project-admin]`).Length(); n != 0 {
		t.Errorf("a member sees %d admin panels", n)
	}

	for name, c := range map[string]struct {
		role, path string
		form       url.Values
		want       int
		field      string // the refused field, on a 422
	}{
		"admin adds a project":      {"", "/projects", url.Values{"name": {"视觉组"}, "tags": {"课题组 视觉，CC-1204"}}, http.StatusSeeOther, ""},
		"a name with a slash":       {"", "/projects", url.Values{"name": {"a/b"}}, http.StatusUnprocessableEntity, "name"},
		"a lead adds no project":    {"lead", "/projects", url.Values{"name": {"x"}}, http.StatusForbidden, ""},
		"lead tags nlp":             {"lead", path(nlp, "tags"), url.Values{"tags": {"cc-7, group b"}}, http.StatusSeeOther, ""},
		"a tag with markup":         {"lead", path(nlp, "tags"), url.Values{"tags": {"<b>"}}, http.StatusUnprocessableEntity, "tags"},
		"lead may not tag vision":   {"lead", path(vision, "tags"), url.Values{"tags": {"x"}}, http.StatusNotFound, ""},
		"member may not tag":        {"member", path(vision, "tags"), url.Values{"tags": {"x"}}, http.StatusForbidden, ""},
		"lead adds viewer":          {"lead", path(nlp, "members"), url.Values{"user": {"viewer"}, "role": {"member"}}, http.StatusSeeOther, ""},
		"an unknown user":           {"lead", path(nlp, "members"), url.Values{"user": {"nobody"}, "role": {"member"}}, http.StatusUnprocessableEntity, "user"},
		"an unknown role":           {"lead", path(nlp, "members"), url.Values{"user": {"viewer"}, "role": {"king"}}, http.StatusUnprocessableEntity, "role"},
		"a lead sets no quota":      {"lead", path(nlp, "quotas"), quotaForm("", "4"), http.StatusForbidden, ""},
		"guaranteed over the limit": {"", path(vision, "quotas"), withValue(quotaForm("A100-80G", "4"), "guaranteed_gpus", "9"), http.StatusUnprocessableEntity, "guaranteed_gpus"},
		"a rate of three decimals":  {"", path(vision, "quotas"), withValue(quotaForm("A100-80G", "4"), "overflow_rate", "1.005"), http.StatusUnprocessableEntity, "overflow_rate"},
		"bad reminders":             {"", path(vision, "quotas"), withValue(quotaForm("A100-80G", "4"), "remind_end_days", "0"), http.StatusUnprocessableEntity, "remind_end_days"},
		"no end date":               {"", path(vision, "quotas"), withValue(quotaForm("A100-80G", "4"), "ends_at", ""), http.StatusUnprocessableEntity, "ends_at"},
		"archive maybe":             {"", path(vision, "archive"), url.Values{"archived": {"maybe"}}, http.StatusBadRequest, ""},
		"archive project 999":       {"", "/projects/999/archive", url.Values{"archived": {"true"}}, http.StatusNotFound, ""},
	} {
		r := w.FormAs(c.role, c.path, c.form)
		if r.StatusCode != c.want {
			t.Errorf("%s: POST %s = %d, want %d", name, c.path, r.StatusCode, c.want)
			continue
		}
		if c.field == "" {
			r.Body.Close()
			continue
		}
		sel := `[data-testid=admin-error]`
		if c.path == "/projects" {
			sel = `[data-testid=project-create-error]`
		}
		if f, _ := webtest.DocOf(t, r).Find(sel).Attr("data-field"); f != c.field {
			t.Errorf("%s: the refusal names %q, want %q", name, f, c.field)
		}
	}
	if p, err := w.Store.ProjectByName(ctx, "视觉组"); err != nil || p.Tags != "CC-1204,课题组 视觉" {
		t.Errorf("视觉组 = %+v, %v; want tagged CC-1204 and 课题组 视觉", p, err)
	}
	if ms, _ := w.Store.ProjectMembers(ctx, nlp.ID); len(ms) != 2 {
		t.Errorf("nlp members = %+v, want lead and viewer", ms)
	}
	for _, role := range []string{"lead", ""} {
		if r := w.FormAs("lead", path(nlp, "members"), url.Values{"user": {"viewer"}, "role": {role}}); r.StatusCode != http.StatusSeeOther {
			t.Errorf("role %q for viewer = %d", role, r.StatusCode)
		}
	}
	if ms, _ := w.Store.ProjectMembers(ctx, nlp.ID); len(ms) != 1 {
		t.Errorf("nlp members after removing viewer = %+v", ms)
	}

	// The admin sets vision's A100 quota with every contract field, then edits it.
	f := withValue(quotaForm("A100-80G", "8"), "overflow_rate", "25.50")
	f.Set("overflow_allowed", "1")
	f.Set("remind_end_days", "14, 3")
	if r := w.FormAs("", path(vision, "quotas"), f); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("set quota = %d", r.StatusCode)
	}
	qs, _ := w.Store.Quotas(ctx, vision.ID)
	want := models.Quota{MaxGPUs: 8, GuaranteedGPUs: 2, BudgetCardHours: 500, OverflowAllowed: true, OverflowRateFen: 2550,
		RemindEndDays: "3,14", StartsAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), EndsAt: time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)}
	if len(qs) != 1 || qs[0].MaxGPUs != want.MaxGPUs || qs[0].GuaranteedGPUs != want.GuaranteedGPUs || qs[0].BudgetCardHours != want.BudgetCardHours ||
		!qs[0].OverflowAllowed || qs[0].OverflowRateFen != want.OverflowRateFen || qs[0].RemindEndDays != want.RemindEndDays ||
		!qs[0].StartsAt.Equal(want.StartsAt) || !qs[0].EndsAt.Equal(want.EndsAt) {
		t.Errorf("quotas = %+v, want one like %+v", qs, want)
	}
	doc = webtest.DocOf(t, w.Get("/projects").Result())
	edit := doc.Find(`[data-project=vision] [data-testid=quota-form][data-spec=A100-80G]`)
	if v, _ := edit.Find(`input[name=overflow_rate]`).Attr("value"); v != "25.50" {
		t.Errorf("the edit form's overflow rate = %q, want 25.50", v)
	}

	// Archived, vision takes no task; the page says so and offers to take it back.
	if r := w.FormAs("", path(vision, "archive"), url.Values{"archived": {"true"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("archive = %d", r.StatusCode)
	}
	doc = webtest.DocOf(t, w.Get("/projects?saved="+webtest.IDStr(vision.ID)).Result())
	if doc.Find(`[data-project=vision] [data-testid=archived]`).Length() != 1 || doc.Find(`[data-testid=unarchive-button]`).Length() != 1 ||
		doc.Find(`[data-testid=notice]`).Length() != 1 {
		t.Error("the archived project is not marked, has no unarchive button, or no notice")
	}
	if n := webtest.DocOf(t, w.Get("/projects", webtest.Bearer(w.Tokens["member"])...).Result()).Find(`[data-project=vision] [data-testid=request-form]`).Length(); n != 0 {
		t.Error("the archived project's card offers its member a request form")
	}
	r := w.Post("/api/v1/tasks", `{"project":"vision","name":"late","gpus":1,"command":["true"]}`)
	if e := webtest.Decode[struct{ Field string }](t, r); r.Code != http.StatusUnprocessableEntity || e.Field != "project" {
		t.Errorf("a task of the archived project = %d naming %q, want 422 naming project", r.Code, e.Field)
	}
}

func TestProjectAdminAPI(t *testing.T) {
	w := webtest.NewBillWorld(t)
	for name, c := range map[string]struct {
		role, path, body string
		want             int
	}{
		"admin adds":            {"", "/api/v1/projects", `{"name":"speech","tags":["cc-9"]}`, http.StatusCreated},
		"twice":                 {"", "/api/v1/projects", `{"name":"vision"}`, http.StatusUnprocessableEntity},
		"a lead may not":        {"lead", "/api/v1/projects", `{"name":"x"}`, http.StatusForbidden},
		"archive":               {"", "/api/v1/projects/1/archive", `{"archived":true}`, http.StatusNoContent},
		"archive without a yes": {"", "/api/v1/projects/1/archive", `{}`, http.StatusBadRequest},
		"archive nothing":       {"", "/api/v1/projects/999/archive", `{"archived":true}`, http.StatusNotFound},
		"quota reminders":       {"", "/api/v1/projects/2/quotas", `{"max_gpus":4,"budget_card_hours":10,"starts_at":"2026-03-01T00:00:00Z","ends_at":"2026-04-01T00:00:00Z","remind_end_days":[7],"remind_budget_pcts":[50,90]}`, http.StatusOK},
		"bad reminders":         {"", "/api/v1/projects/2/quotas", `{"max_gpus":4,"budget_card_hours":10,"starts_at":"2026-03-01T00:00:00Z","ends_at":"2026-04-01T00:00:00Z","remind_budget_pcts":[0]}`, http.StatusUnprocessableEntity},
	} {
		r := w.Post(c.path, c.body)
		if c.role != "" {
			r = w.Post(c.path, c.body, webtest.Bearer(w.Tokens[c.role])...)
		}
		if r.Code != c.want {
			t.Errorf("%s: POST %s = %d %s, want %d", name, c.path, r.Code, r.Body, c.want)
		}
	}
	projects := webtest.Decode[[]struct {
		Name       string     `json:"name"`
		ArchivedAt *time.Time `json:"archived_at"`
		Quotas     []struct {
			RemindBudgetPcts []int `json:"remind_budget_pcts"`
		} `json:"quotas"`
	}](t, w.Get("/api/v1/projects"))
	got := map[string]string{}
	for _, p := range projects {
		got[p.Name] = "in use"
		if p.ArchivedAt != nil {
			got[p.Name] = "archived"
		}
		if len(p.Quotas) == 1 && len(p.Quotas[0].RemindBudgetPcts) == 2 {
			got[p.Name] += " with reminders"
		}
	}
	if got["speech"] != "in use" || got["vision"] != "archived" || got["nlp"] != "in use with reminders" {
		t.Errorf("projects = %v", got)
	}
}

// quotaForm is the admin's quota form for spec with max GPUs, 2 guaranteed, 500 card-hours,
// from 2026-03-01 for a year.
func quotaForm(spec, maxGPUs string) url.Values {
	return url.Values{"spec": {spec}, "max_gpus": {maxGPUs}, "guaranteed_gpus": {"2"}, "budget_card_hours": {"500"},
		"starts_at": {"2026-03-01"}, "ends_at": {"2027-03-01"}}
}

// withValue returns v with field set to value.
func withValue(v url.Values, field, value string) url.Values {
	v.Set(field, value)
	return v
}
