package tasks_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestTaskQuotaLink: a task waiting on its project's limit of cards says by how much, and links
// to the quota request filled in with what it needs. The cards in use are counted by the spec
// of the card held, as the scheduler counts them: a task of any spec on an A100 counts too.
// The projects page shows the same use against the limit. A task of any spec is sent to the
// limit it exceeds.
func TestTaskQuotaLink(t *testing.T) {
	cfg := webtest.TestCfg()
	cfg.Location = time.UTC
	s := webtest.NewServerOn(t, webtest.NewStore(t), cfg)
	s.Projects("vision")
	member := s.Member("alice", "vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 4))
	p, _ := s.Store.ProjectByName(context.Background(), "vision")
	if _, err := s.Store.SetQuota(context.Background(), "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 2, BudgetCardHours: 1000,
		StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(0, 1, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	held := s.Create(webtest.Task("holder").GPUs(2).Spec("A100-80G").Ready(), webtest.T0.Add(-time.Hour))
	s.Place(held, webtest.T0.Add(-time.Hour), webtest.UUIDOf("n1", 0), webtest.UUIDOf("n1", 1))
	anySpec := s.Create(webtest.Task("any").Ready(), webtest.T0.Add(-time.Hour))
	s.Place(anySpec, webtest.T0.Add(-time.Hour), webtest.UUIDOf("n1", 2))
	waits := s.Create(webtest.Task("more").GPUs(1).Spec("A100-80G").Ready(), webtest.T0)
	id := strconv.FormatInt(waits.ID, 10)

	doc := webtest.Parse(t, s.Get("/tasks/"+id, webtest.Bearer(member)...).Body.String())
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid=task-quota]`).Text()), " "); !strings.Contains(got, "in use 3 + asks 1 = 4 > limit 2") {
		t.Fatalf("quota line = %q, want in use 3 + asks 1 = 4 > limit 2", got)
	}
	link, _ := url.Parse(doc.Find(`[data-testid=task-quota-request]`).AttrOr("href", ""))
	if got, want := link.Query().Get("value"), "4"; got != want {
		t.Errorf("request link value = %q, want %q (%s)", got, want, link)
	}
	page := webtest.Parse(t, s.Get(link.RequestURI(), webtest.Bearer(member)...).Body.String())
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
	// A task of any spec waits on the A100 limit too, and is sent to the same request.
	anyWaits := s.Create(webtest.Task("any-more").Ready(), webtest.T0)
	doc = webtest.Parse(t, s.Get("/tasks/"+strconv.FormatInt(anyWaits.ID, 10), webtest.Bearer(member)...).Body.String())
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid=task-quota]`).Text()), " "); !strings.Contains(got, "in use 3 + asks 1 = 4 > limit 2") {
		t.Errorf("quota line of a task of any spec = %q, want in use 3 + asks 1 = 4 > limit 2", got)
	}
	if link, _ := url.Parse(doc.Find(`[data-testid=task-quota-request]`).AttrOr("href", "")); link.Query().Get("spec") != "A100-80G" {
		t.Errorf("request link of a task of any spec = %s, want the A100-80G limit", link)
	}
	if w := s.Get("/projects?task=x", webtest.Bearer(member)...); w.Code != 400 || !strings.Contains(w.Body.String(), "task") {
		t.Errorf("GET /projects?task=x = %d, want 400 naming task", w.Code)
	}
}
