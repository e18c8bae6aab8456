package web_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// TestTaskQuotaLink: a task waiting on its project's limit of cards says by how much, and links
// to the quota request filled in with what it needs. The cards in use are counted by the spec
// of the card held, as the scheduler counts them: a task of any spec on an A100 counts too.
// The projects page shows the same use against the limit.
func TestTaskQuotaLink(t *testing.T) {
	cfg := testCfg()
	cfg.Location = time.UTC
	s := newServerOn(t, newStore(t), cfg)
	s.projects("vision")
	member := s.member("alice", "vision")
	s.register(node("n1").cards(a100Name, a100MiB, 4))
	p, _ := s.store.ProjectByName(context.Background(), "vision")
	if _, err := s.store.SetQuota(context.Background(), "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 2, BudgetCardHours: 1000,
		StartsAt: t0.AddDate(0, -1, 0), EndsAt: t0.AddDate(0, 1, 0)}, t0); err != nil {
		t.Fatal(err)
	}
	held := s.create(task("holder").gpus(2).spec("A100-80G").ready(), t0.Add(-time.Hour))
	s.place(held, t0.Add(-time.Hour), uuidOf("n1", 0), uuidOf("n1", 1))
	anySpec := s.create(task("any").ready(), t0.Add(-time.Hour))
	s.place(anySpec, t0.Add(-time.Hour), uuidOf("n1", 2))
	waits := s.create(task("more").gpus(1).spec("A100-80G").ready(), t0)
	id := strconv.FormatInt(waits.ID, 10)

	doc := parse(t, s.get("/tasks/"+id, bearer(member)...).Body.String())
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid=task-quota]`).Text()), " "); !strings.Contains(got, "in use 3 + asks 1 = 4 > limit 2") {
		t.Fatalf("quota line = %q, want in use 3 + asks 1 = 4 > limit 2", got)
	}
	link, _ := url.Parse(doc.Find(`[data-testid=task-quota-request]`).AttrOr("href", ""))
	if got, want := link.Query().Get("value"), "4"; got != want {
		t.Errorf("request link value = %q, want %q (%s)", got, want, link)
	}
	page := parse(t, s.get(link.RequestURI(), bearer(member)...).Body.String())
	if got := strings.Join(strings.Fields(page.Find(`[data-spec=A100-80G] [data-testid=quota-in-use]`).Text()), " "); got != "3 in use of 2" {
		t.Errorf("projects page's use of the limit = %q, want 3 in use of 2", got)
	}
	if got := strings.Join(strings.Fields(page.Find(`[data-spec=A100-80G] [data-testid=quota-budget]`).Text()), " "); got != "3 of 1,000" {
		t.Errorf("projects page's use of the budget = %q, want 3 of 1,000", got)
	}
	form := page.Find(`#request-vision`)
	if got := form.Find(`input[name=value]`).AttrOr("value", ""); got != "4" {
		t.Errorf("request form value = %q, want 4", got)
	}
	if got := form.Find(`textarea[name=reason]`).Text(); !strings.Contains(got, "#"+id) {
		t.Errorf("request form reason = %q, want it to name task #%s", got, id)
	}
	if got := form.Find(`select[name=kind] option[selected]`).AttrOr("value", ""); got != "limit" {
		t.Errorf("request kind = %q, want limit", got)
	}
	if w := s.get("/projects?task=x", bearer(member)...); w.Code != 400 || !strings.Contains(w.Body.String(), "task") {
		t.Errorf("GET /projects?task=x = %d, want 400 naming task", w.Code)
	}
}
