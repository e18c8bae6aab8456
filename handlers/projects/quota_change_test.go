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

// TestQuotaChangePage: an admin gives vision an A100 quota of 4 cards on 1 February and cuts
// it to 1 on 11 February. The projects page lists the cut under vision for its member and
// loads what it saved; the change's page shows vision's figures on the A100 pool in the ten
// days after against the ten before, and the days after replayed under each quota, the
// page's poll its body only, in both languages. A member and a lead of vision and admins
// open it; a lead of another project gets 403, the first quota, an unknown change and the
// change under another project 404. On SQLite and Postgres.
func TestQuotaChangePage(t *testing.T) {
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
		q := models.Quota{ProjectID: vision.ID, Spec: webtest.A100Spec, MaxGPUs: 4, BudgetCardHours: 1000,
			StartsAt: webtest.Feb(1, 0), EndsAt: webtest.Feb(1, 0).AddDate(0, 3, 0)}
		for _, c := range []struct {
			max int
			at  time.Time
		}{{4, webtest.Feb(1, 1)}, {1, webtest.Feb(11, 1)}} {
			q.MaxGPUs = c.max
			if _, err := s.Store.SetQuota(ctx, "admin", q, c.at); err != nil {
				t.Fatal(err)
			}
		}
		edits, err := s.Store.QuotaEdits(ctx, vision.ID, time.Time{}, time.Time{})
		if err != nil || len(edits) != 2 {
			t.Fatalf("edits = %+v, %v", edits, err)
		}
		cut, first := edits[0].ID, edits[1].ID
		path := "/projects/" + strconv.FormatInt(vision.ID, 10) + "/quota-changes/" + strconv.FormatInt(cut, 10)

		list := webtest.Parse(t, w.Get("/projects", webtest.Bearer(w.Tokens["member"])...).Body.String())
		rows := list.Find(`[data-testid=quota-change]`)
		if rows.Length() != 1 || rows.Find("a").AttrOr("href", "") != path || rows.Find(`[data-testid=quota-effect]`).AttrOr("hx-get", "") != path {
			t.Errorf("the projects page lists %d quota changes (%q); want the cut, linked and loading what it saved", rows.Length(), rows.Text())
		}
		page := changePage(t, s, path, "idle hours, waits ")
		if page.Find(`[data-testid=change-table]`).Length() != 1 || page.Find(`[data-testid=change-counter-table]`).Length() != 1 ||
			page.Find(`#change-measure[hx-get]`).Length() != 0 || !strings.Contains(page.Find(`[data-testid=change-fields]`).Text(), "4 → 1") {
			t.Errorf("the page lacks its fields, its before/after or its counterfactual, or still polls:\n%s", page.Text())
		}
		// vision held 2 cards × 3 h before the cut (sft-r1) and 1 card × 1.5 h after (eval-3).
		held := page.Find(`[data-testid=change-table] tbody tr`).Eq(1).Find("td")
		if b, a := strings.TrimSpace(held.Eq(0).Text()), strings.TrimSpace(held.Eq(1).Text()); b != "6 card-hours" || a != "1.5 card-hours" {
			t.Errorf("vision's held card time before, after = %q, %q; want 6 and 1.5", b, a)
		}
		zh := webtest.Parse(t, s.Get(path, "Accept-Language", "zh-CN").Body.String())
		if got := zh.Find(`[data-testid=change-sentence]`).Text(); !strings.HasPrefix(got, "这次改动") {
			t.Errorf("zh sentence = %q", got)
		}
		// The head says who changed it and when, in the page's words: the audit entry's key
		// ("quota A100-80G") is no note.
		if head := zh.Find(`.page-head .muted`).Text(); strings.Contains(head, "quota") {
			t.Errorf("zh head = %q, an English key on a Chinese page", head)
		}
		checkChangeAccess(t, s, w, vision.ID, "quota-changes", cut, first)
	})
}
