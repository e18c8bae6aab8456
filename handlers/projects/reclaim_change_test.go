package projects_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestReclaimChangePage: vision's lead tightens its idle reclaim on 11 February (a notice
// after 15 idle minutes, from the pools'). The projects page lists the change under vision
// for its member and loads what it saved; the change's page shows the fields changed,
// vision's figures on every pool in the days after against the days before, and the days
// after re-evaluated under each setting with the tasks reclaim stopped instead of waits, the
// page's poll its body only, in both languages. A member and a lead of vision and admins
// open it; a lead of another project gets 403, an unknown change and the change under
// another project 404. On SQLite and Postgres.
func TestReclaimChangePage(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		w := webtest.NewBillWorldOn(t, s, true)
		ctx := context.Background()
		if _, err := s.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "", webtest.Feb(1, 0)); err != nil {
			t.Fatal(err)
		}
		vision, err := s.Store.ProjectByName(ctx, "vision")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Store.SetReclaimOverride(ctx, "lead", vision.ID, models.ReclaimOverride{IdleS: 900}, webtest.Feb(11, 1)); err != nil {
			t.Fatal(err)
		}
		edits, err := s.Store.ReclaimEdits(ctx, vision.ID, time.Time{}, time.Time{})
		if err != nil || len(edits) != 1 {
			t.Fatalf("edits = %+v, %v", edits, err)
		}
		id := edits[0].ID
		path := "/projects/" + strconv.FormatInt(vision.ID, 10) + "/reclaim-changes/" + strconv.FormatInt(id, 10)

		list := webtest.Parse(t, w.Get("/projects", webtest.Bearer(w.Tokens["member"])...).Body.String())
		rows := list.Find(`[data-testid=reclaim-change]`)
		if rows.Length() != 1 || rows.Find("a").AttrOr("href", "") != path || rows.Find(`[data-testid=reclaim-effect]`).AttrOr("hx-get", "") != path ||
			!strings.Contains(rows.Text(), "Idle time before a notice: the pool's → 15m") {
			t.Errorf("the projects page lists %d reclaim changes (%q); want the change, linked and loading what it saved", rows.Length(), rows.Text())
		}
		frag := s.Measured(path, "HX-Request", "true")
		said := strings.TrimSpace(webtest.Parse(t, frag.Body.String()).Find(`[data-testid=change-effect-text]`).Text())
		if frag.Code != http.StatusOK || !strings.HasPrefix(said, "This change ") || !strings.Contains(said, "tasks reclaimed ") {
			t.Errorf("the list's sentence = %d %q", frag.Code, said)
		}
		page := webtest.Parse(t, s.Get(path).Body.String())
		if got := strings.TrimSpace(page.Find(`[data-testid=change-sentence]`).Text()); got != said {
			t.Errorf("the page says %q, the list %q", got, said)
		}
		if page.Find(`[data-testid=change-table]`).Length() != 1 || page.Find(`[data-testid=change-stops]`).Length() != 1 ||
			page.Find(`#change-measure[hx-get]`).Length() != 0 || !strings.Contains(page.Find(`[data-testid=change-fields]`).Text(), "the pool's → 15m") {
			t.Errorf("the page lacks its fields, its before/after or its counterfactual's stops, or still polls:\n%s", page.Text())
		}
		if strings.Contains(page.Find(`[data-testid=change-counter-table]`).Text(), "Mean wait") {
			t.Error("the re-evaluation shows waits it does not model")
		}
		poll := s.Get(path, "HX-Request", "true", "HX-Target", "change-measure")
		if webtest.Parse(t, poll.Body.String()).Find(`#change-measure [data-testid=change-counter-table]`).Length() != 1 ||
			strings.Contains(strings.ToLower(poll.Body.String()), "<!doctype") {
			t.Errorf("the page's poll answers %s, want the body", poll.Body)
		}
		zh := webtest.Parse(t, s.Get(path, "Accept-Language", "zh-CN").Body.String())
		if got := zh.Find(`[data-testid=change-sentence]`).Text(); !strings.HasPrefix(got, "这次改动") || !strings.Contains(got, "被回收任务") {
			t.Errorf("zh sentence = %q", got)
		}
		visionLead := s.MemberAs("vic", "vision", models.ProjectRoleLead)
		for who, want := range map[string]int{"member": http.StatusOK, "lead": http.StatusForbidden, "finance": http.StatusForbidden,
			"viewer": http.StatusForbidden} {
			if r := w.As(who, path); r.Code != want {
				t.Errorf("GET %s as %s = %d, want %d", path, who, r.Code, want)
			}
		}
		if r := s.Get(path, webtest.Bearer(visionLead)...); r.Code != http.StatusOK {
			t.Errorf("GET %s as vision's lead = %d", path, r.Code)
		}
		nlp, err := s.Store.ProjectByName(ctx, "nlp")
		if err != nil {
			t.Fatal(err)
		}
		for p, want := range map[string]int{
			"/projects/" + strconv.FormatInt(vision.ID, 10) + "/reclaim-changes/99999":                     http.StatusNotFound,
			"/projects/" + strconv.FormatInt(nlp.ID, 10) + "/reclaim-changes/" + strconv.FormatInt(id, 10): http.StatusNotFound,
			"/projects/x/reclaim-changes/1":                                        http.StatusNotFound,
			"/projects/" + strconv.FormatInt(vision.ID, 10) + "/reclaim-changes/0": http.StatusNotFound,
		} {
			if r := s.Get(p); r.Code != want {
				t.Errorf("GET %s = %d, want %d", p, r.Code, want)
			}
		}
	})
}
