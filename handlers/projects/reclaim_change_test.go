package projects_test

import (
	"context"
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
			!strings.Contains(rows.Find("a").Text(), "Idle reclaim: notice 15m") {
			t.Errorf("the projects page lists %d reclaim changes (%q); want the change, linked and loading what it saved", rows.Length(), rows.Text())
		}
		page := changePage(t, s, path, "tasks reclaimed ")
		if page.Find(`[data-testid=change-table]`).Length() != 1 || page.Find(`[data-testid=change-stops]`).Length() != 1 ||
			page.Find(`#change-measure[hx-get]`).Length() != 0 || !strings.Contains(page.Find(`[data-testid=change-fields]`).Text(), "the pool's → 15m") {
			t.Errorf("the page lacks its fields, its before/after or its counterfactual's stops, or still polls:\n%s", page.Text())
		}
		if strings.Contains(page.Find(`[data-testid=change-counter-table]`).Text(), "Mean wait") {
			t.Error("the re-evaluation shows waits it does not model")
		}
		// The two idle figures say which is which: as the periods ran, and re-evaluated.
		if ran, again := page.Find(`[data-testid=change-table]`).Text(), page.Find(`[data-testid=change-counter-idle] th`).Text(); !strings.Contains(ran, "Held but idle") ||
			strings.TrimSpace(again) != "Held but idle (re-evaluated)" {
			t.Errorf("idle rows: before/after %q, counterfactual %q; want them told apart", ran, again)
		}
		zh := webtest.Parse(t, s.Get(path, "Accept-Language", "zh-CN").Body.String())
		if got := zh.Find(`[data-testid=change-sentence]`).Text(); !strings.HasPrefix(got, "这次改动") || !strings.Contains(got, "被回收任务") {
			t.Errorf("zh sentence = %q", got)
		}
		checkChangeAccess(t, s, w, vision.ID, "reclaim-changes", id, 0)
	})
}
