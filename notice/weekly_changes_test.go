package notice_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/demo"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/phrase"
	"kashi/web/webtest"
)

// TestWeeklyReportListsTheWeeksChanges: in the demo's past, the A100 pool's settings change
// twice in the week of 23 February: on Wednesday (at most 8 machines) and on Sunday evening
// (at most 10). The report sent on Monday morning lists both in every project's message:
// the first with what it saved, word for word the sentence of the change's own page read at
// the same moment (one computation), linking to that page; the second, under a day old, with
// when it will be measured, as its page says too. A change of the week before is not listed.
// A100's list price rises from March (1 March, 00:00 in Shanghai, in the same week) and
// vision's quota is halved on Tuesday: each is listed in its place, with the sentence of its
// own page (the price's day in March billed at the old rate against the new; the quota's days
// after replayed under each quota) and linked to it.
func TestWeeklyReportListsTheWeeksChanges(t *testing.T) {
	ctx := context.Background()
	demoStart := time.Date(2026, 3, 4, 0, 30, 0, 0, time.UTC)
	store := modelstest.SQLite(t, models.Options{})
	if _, _, err := demo.Seed(ctx, store, demoStart); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.FillHistory(ctx, store, demoStart, 1); err != nil {
		t.Fatal(err)
	}
	cps, err := store.ConfiguredPools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pool models.PoolConfig
	var spec string
	for _, p := range cps {
		if p.Name == "a100" {
			pool, spec = p.Config, p.Spec
		}
	}
	priceID := raisePrice(t, store, spec, "2026-03")
	vision, err := store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	quotaPath := cutQuota(t, store, vision.ID, time.Date(2026, 2, 24, 2, 0, 0, 0, time.UTC))
	var versions []int
	for _, c := range []struct {
		max int
		at  time.Time
	}{{11, time.Date(2026, 2, 20, 2, 0, 0, 0, time.UTC)}, {8, time.Date(2026, 2, 25, 2, 0, 0, 0, time.UTC)}, {10, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}} {
		pool.MaxNodes = c.max
		v, err := store.SavePoolConfig(ctx, "a100", pool, "admin", "", c.at)
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v.Version)
	}
	now := time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC) // Monday 09:00 in Shanghai
	msgs, err := notice.BillingReports(store, phrase.Locale{Lang: phrase.LangEN}, "https://kashi.example")(ctx, "2026-W09", now)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("BillingReports(2026-W09) = %d messages, %v", len(msgs), err)
	}

	cfg := webtest.TestCfg()
	if cfg.Location, err = time.LoadLocation("Asia/Shanghai"); err != nil { // the demo's billing zone
		t.Fatal(err)
	}
	s := webtest.NewServerOn(t, store, cfg)
	s.SetNow(now)
	sentence := func(v int) string {
		w := s.Measured("/pools/a100/changes/" + strconv.Itoa(v))
		return strings.TrimSpace(webtest.Parse(t, w.Body.String()).Find(`[data-testid=change-sentence]`).Text())
	}
	saved, later := sentence(versions[1]), sentence(versions[2])
	if !strings.HasPrefix(saved, "This change ") || !strings.HasPrefix(later, "Measured from 2026-03-02 20:00") {
		t.Fatalf("the pages say %q and %q", saved, later)
	}
	quotaSaid := strings.TrimSpace(webtest.Parse(t, s.Measured(quotaPath).Body.String()).Find(`[data-testid=change-sentence]`).Text())
	if !strings.HasPrefix(quotaSaid, "This change ") {
		t.Fatalf("the quota's page says %q", quotaSaid)
	}
	pricePath := "/prices/changes/" + strconv.FormatInt(priceID, 10)
	priced := strings.TrimSpace(webtest.Parse(t, s.Measured(pricePath).Body.String()).Find(`[data-testid=change-sentence]`).Text())
	if !strings.HasPrefix(priced, "Billed ¥") || !strings.HasSuffix(priced, " more than at the old price") {
		t.Fatalf("the price's page says %q", priced)
	}
	for _, m := range msgs {
		_, list, ok := strings.Cut(m.Text, "Setting changes of the week:\n")
		if !ok {
			t.Fatalf("%s's message lists no changes:\n%s", m.Project, m.Text)
		}
		list, _, _ = strings.Cut(list, "\n\n")
		want := "- Quota of vision on " + spec + " (2026-02-24 10:00, admin): " + quotaSaid + " https://kashi.example" + quotaPath + "\n" +
			"- Pool a100, version " + strconv.Itoa(versions[1]) + " (2026-02-25 10:00, admin): " + saved +
			" https://kashi.example/pools/a100/changes/" + strconv.Itoa(versions[1]) + "\n" +
			"- Price of " + spec + " from 2026-03 (2026-03-01 00:00, the price list): " + priced +
			" https://kashi.example" + pricePath + "\n" +
			"- Pool a100, version " + strconv.Itoa(versions[2]) + " (2026-03-01 20:00, admin): " + later +
			" https://kashi.example/pools/a100/changes/" + strconv.Itoa(versions[2])
		if list != want {
			t.Errorf("%s's changes:\n%s\nwant\n%s", m.Project, list, want)
		}
	}
	zh, err := notice.BillingReports(store, phrase.Locale{Lang: phrase.LangZH}, "https://kashi.example")(ctx, "2026-W09", now)
	if err != nil || len(zh) == 0 || !strings.Contains(zh[0].Text, "本周的设置改动：\n- vision 在 "+spec+" 上的配额（2026-02-24 10:00，admin）：这次改动") ||
		!strings.Contains(zh[0].Text, "\n- 资源池 a100 第 "+strconv.Itoa(versions[1])+" 版（2026-02-25 10:00，admin）：这次改动") {
		t.Errorf("zh message: %v\n%v", err, zh)
	}

	// The report page of the week lists the same changes with the same sentences as the
	// message, in both languages, each linked to its page for an admin.
	for lang, msg := range map[string]string{"en": msgs[0].Text, "zh-CN": zh[0].Text} {
		page := webtest.Parse(t, s.Get("/reports?week=2026-W09", "Accept-Language", lang).Body.String())
		rows := page.Find(`[data-testid=report-change]`)
		if rows.Length() != 4 {
			t.Fatalf("%s: the report page lists %d changes, want 4", lang, rows.Length())
		}
		for i, path := range []string{quotaPath, "/pools/a100/changes/" + strconv.Itoa(versions[1]), pricePath, "/pools/a100/changes/" + strconv.Itoa(versions[2])} {
			row := rows.Eq(i)
			said := strings.TrimSpace(row.Find(`[data-testid=report-change-sentence]`).Text())
			if row.AttrOr("data-url", "") != path || !strings.Contains(msg, "："+said+" ") && !strings.Contains(msg, ": "+said+" ") {
				t.Errorf("%s: the page's change %d says %q, not in the message:\n%s", lang, i, said, msg)
			}
			if href := row.Find("a").AttrOr("href", ""); href != path {
				t.Errorf("%s: change %d links to %q", lang, i, href)
			}
		}
	}
	// A member of another project reads the same list without links; a member of vision gets
	// the link of vision's quota change only.
	for member, want := range map[string]string{"mia": "", "vera": quotaPath} {
		project := "vision"
		if want == "" {
			project = "nlp"
		}
		w := s.Get("/reports?week=2026-W09", webtest.Bearer(s.Member(member, project))...)
		rows := webtest.Parse(t, w.Body.String()).Find(`[data-testid=report-change]`)
		if got := rows.Find("a").AttrOr("href", ""); w.Code != 200 || rows.Length() != 4 || got != want || rows.Find("a").Length() > 1 {
			t.Errorf("GET /reports as a member of %s = %d, %d changes, links %d (%q); want 4 changes, linked %q only", project, w.Code, rows.Length(), rows.Find("a").Length(), got, want)
		}
	}
	// Finance, who reads the prices but leads no project, gets the price's link only.
	w := s.Get("/reports?week=2026-W09", "Authorization", "Bearer "+s.UserToken("fay", models.RoleFinance))
	links := webtest.Parse(t, w.Body.String()).Find(`[data-testid=report-change] a`)
	if w.Code != 200 || links.Length() != 1 || links.AttrOr("href", "") != pricePath {
		t.Errorf("GET /reports as finance = %d, %d links (%q); want the price's only", w.Code, links.Length(), links.AttrOr("href", ""))
	}
}

// cutQuota halves the limit of the project's quota at at and returns the change's page.
func cutQuota(t *testing.T, s *models.Store, project int64, at time.Time) string {
	t.Helper()
	ctx := context.Background()
	qs, err := s.Quotas(ctx, project)
	if err != nil || len(qs) == 0 {
		t.Fatalf("quotas of project %d = %v, %v", project, qs, err)
	}
	q := qs[0]
	q.MaxGPUs /= 2
	if _, err := s.SetQuota(ctx, "admin", q, at); err != nil {
		t.Fatal(err)
	}
	es, err := s.QuotaEdits(ctx, project, at, at.Add(time.Second))
	if err != nil || len(es) != 1 {
		t.Fatalf("the quota's change = %v, %v", es, err)
	}
	return "/projects/" + strconv.FormatInt(project, 10) + "/quota-changes/" + strconv.FormatInt(es[0].ID, 10)
}

// raisePrice sets spec's default list price from month to 5 yuan a card-hour more than the
// price before it, and returns the new row's id.
func raisePrice(t *testing.T, s *models.Store, spec, month string) int64 {
	t.Helper()
	ctx := context.Background()
	old, err := s.Prices(ctx, month)
	if err != nil {
		t.Fatal(err)
	}
	p := models.Price{Spec: spec, FromMonth: month}
	for _, o := range old {
		if o.ProjectID == 0 && o.Spec == spec {
			p.RateFen, p.OverflowRateFen = o.RateFen+500, o.OverflowRateFen+500
		}
	}
	if p.RateFen == 0 {
		t.Fatalf("no list price of %s before %s", spec, month)
	}
	if err := s.SetPrice(ctx, p, time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	hist, err := s.PriceHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		if h.ProjectID == 0 && h.Spec == spec && h.FromMonth == month {
			return h.ID
		}
	}
	t.Fatalf("the price of %s from %s is not in the history", spec, month)
	return 0
}
