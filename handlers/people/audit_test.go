package people_test

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"kashi/phrase"
	"kashi/web/webtest"
)

func TestAuditPage(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	if r := w.Post("/api/v1/requests/"+webtest.IDStr(w.Request.ID)+"/approve", `{"comment":"ok"}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	lead := webtest.Bearer(w.Tokens["lead"])
	page := func(query string, hdr ...string) *goquery.Document {
		t.Helper()
		r := w.Get("/audit"+query, append(lead, hdr...)...)
		if r.Code != http.StatusOK {
			t.Fatalf("GET /audit%s = %d", query, r.Code)
		}
		return webtest.Parse(t, r.Body.String())
	}
	// The approval's quota change, in Chinese, field by field, at 18:00 in Tokyo.
	doc := page("?action=quota-change&actor=lead", "Cookie", "kashi_lang=zh-CN; kashi_tz=Asia%2FTokyo")
	rows := doc.Find(`[data-testid=audit-row]`)
	if rows.Length() != 1 {
		t.Fatalf("rows of the lead's quota changes = %d, want 1", rows.Length())
	}
	if got := rows.Find(`[data-testid=audit-action]`).Text(); got != "配额变更" {
		t.Errorf("action = %q, want 配额变更", got)
	}
	var diff []string
	rows.Find(`[data-testid=audit-field]`).Each(func(i int, s *goquery.Selection) {
		diff = append(diff, s.Text()+": "+strings.Join(strings.Fields(rows.Find(`[data-testid=audit-diff]`).Eq(i).Text()), " "))
	})
	if strings.Join(diff, "; ") != "保障卡数: 0 → 2" {
		t.Errorf("changes = %q, want only 保障卡数: 0 → 2", diff)
	}
	if got := rows.Find(`time`).Text(); got != "2026-03-02 18:00:00" {
		t.Errorf("time = %q, want 2026-03-02 18:00:00 (Tokyo)", got)
	}
	if v, _ := doc.Find(`select[name=action] option[selected]`).Attr("value"); v != "quota-change" {
		t.Errorf("the filter form keeps action %q, want quota-change", v)
	}
	if href, _ := doc.Find(`[data-testid=audit-csv]`).Attr("href"); href != "/audit.csv?action=quota-change&actor=lead" {
		t.Errorf("CSV link = %q", href)
	}
	// The admin's new quota: its fields that are set (its contract among them), none of its
	// empty ones or bookkeeping.
	doc = page("?actor=tester&action=quota-change")
	var fields []string
	doc.Find(`[data-testid=audit-field]`).Each(func(_ int, s *goquery.Selection) { fields = append(fields, s.Text()) })
	if got := strings.Join(fields, "|"); got != "card-hours a month|contract: card-hours a month a lead approves|contract: guaranteed GPUs a lead approves|"+
		"contract: GPUs at once a lead approves|ends|GPUs at once|spec|starts" {
		t.Errorf("the new quota's fields = %q", got)
	}
	for q, want := range map[string]int{"": 4, "?project=vision": 4, "?from=2026-03-03": 0, "?to=2026-03-02": 4, "?action=approve": 1} {
		if got := page(q).Find(`[data-testid=audit-row]`).Length(); got != want {
			t.Errorf("GET /audit%s = %d rows, want %d", q, got, want)
		}
	}
	for _, q := range []string{"?from=March", "?project=nope"} {
		if r := w.Get("/audit"+q, lead...); r.Code != http.StatusBadRequest {
			t.Errorf("GET /audit%s = %d, want 400", q, r.Code)
		}
	}

	// The filtered log as CSV, for leads and admins only.
	r := w.Get("/audit.csv?action=approve", lead...)
	if r.Code != http.StatusOK || r.Header().Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("GET /audit.csv = %d %s", r.Code, r.Header().Get("Content-Type"))
	}
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(r.Body.String(), "\ufeff"))).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][2] != "lead" || recs[1][3] != "approve" || recs[1][4] != "vision" {
		t.Errorf("CSV = %q, %v; want the header and the lead's approval of vision's request", recs, err)
	}
	if r := w.Get("/audit.csv", webtest.Bearer(w.Tokens["member"])...); r.Code != http.StatusForbidden {
		t.Errorf("GET /audit.csv as a member = %d, want 403", r.Code)
	}
	// An admin's log holds what no project owns; a lead's does not.
	if r := w.Get("/audit.csv?action=login-failed"); r.Code != http.StatusOK {
		t.Errorf("GET /audit.csv as admin = %d", r.Code)
	}
	w.Login("=cmd()", "x", "10.0.0.7")
	if body := w.Get("/audit.csv?action=login-failed").Body.String(); !strings.Contains(body, "'=cmd()") {
		t.Errorf("a failed login's typed name is not kept as text: %q", body)
	}
	if body := w.Get("/audit.csv?action=login-failed", lead...).Body.String(); strings.Contains(body, "cmd") {
		t.Errorf("a lead's CSV holds entries of no project: %q", body)
	}
	if got := webtest.Decode[[]struct{ Actor string }](t, w.Get("/api/v1/audit?actor=member", lead...)); len(got) != 1 {
		t.Errorf("GET /api/v1/audit?actor=member = %+v, want the member's request", got)
	}
}

// The audit log reads in the viewer's language, with no raw key left: after every action the
// log records (each of the catalogs' actions at least once), the Chinese page names each
// action, subject and changed field in Chinese words, never a field's stored name (max_nodes,
// request_id, sha256), a catalog key or JSON; users by name, not by number; a change of tags
// as the tags before and after. The English page has a label for every field too. The CSV
// keeps stable, machine-readable columns in any language: codes, the stored subject and the
// raw JSON.
func TestAuditPageWords(t *testing.T) {
	w := webtest.NewAuditWorld(t)
	page := func(lang string) *goquery.Document {
		t.Helper()
		r := w.Get("/audit", "Cookie", "kashi_lang="+lang)
		if r.Code != http.StatusOK {
			t.Fatalf("GET /audit (%s) = %d", lang, r.Code)
		}
		return webtest.Parse(t, r.Body.String())
	}
	zh, en := page(phrase.LangZH), page(phrase.LangEN)
	seen := map[string]bool{}
	zh.Find(`[data-testid=audit-row]`).Each(func(_ int, s *goquery.Selection) { seen[s.AttrOr("data-action", "")] = true })
	for k := range (phrase.Locale{Lang: phrase.LangEN}).Catalog() {
		if a, ok := strings.CutPrefix(k, phrase.AuditActionKeyPrefix); ok && !seen[a] {
			t.Errorf("the world did no %q: the page's words for it are untested", a)
		}
	}

	han := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
	}
	rawKey := regexp.MustCompile(`\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b|\b[a-z]+\.[a-z_.-]+[a-z]\b|\bsha256\b|[{}]|"\w+":`)
	text := func(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
	zh.Find(`[data-testid=audit-row]`).Each(func(_ int, row *goquery.Selection) {
		action := row.AttrOr("data-action", "")
		for _, sel := range []string{`[data-testid=audit-action]`, `[data-testid=audit-subject]`} {
			if got := text(row.Find(sel)); !han(got) {
				t.Errorf("zh %s: %s %q is not in Chinese", action, sel, got)
			}
		}
		row.Find(`[data-testid=audit-field]`).Each(func(i int, f *goquery.Selection) {
			label, field := text(f), f.AttrOr("data-field", "")
			diff := text(row.Find(`[data-testid=audit-diff]`).Eq(i))
			if !han(label) || label == field {
				t.Errorf("zh %s: field %s is labelled %q, not in Chinese", action, field, label)
			}
			if m := rawKey.FindString(label + " " + diff); m != "" {
				t.Errorf("zh %s: %s %s shows the raw %q", action, label, diff, m)
			}
		})
	})
	if m := rawKey.FindAllString(text(zh.Find(`table.audit`)), -1); len(m) > 0 {
		t.Errorf("zh audit table shows raw keys %q", m)
	}
	en.Find(`[data-testid=audit-field]`).Each(func(_ int, f *goquery.Selection) {
		if label, field := text(f), f.AttrOr("data-field", ""); rawKey.MatchString(label) {
			t.Errorf("en field %s is labelled %q: no label", field, label)
		}
	})

	diffOf := func(action, field string) string {
		t.Helper()
		var got []string
		zh.Find(`[data-testid=audit-row][data-action=` + action + `]`).Each(func(_ int, row *goquery.Selection) {
			row.Find(`[data-testid=audit-field][data-field="` + field + `"]`).Each(func(_ int, f *goquery.Selection) {
				got = append(got, text(f.Next()))
			})
		})
		return strings.Join(got, " | ")
	}
	for _, tc := range []struct{ action, field, want string }{
		{"project-tags", "tags", "cv, gpu-heavy → cv, 课题组 视觉 | — → cv, gpu-heavy"},
		{"request-create", "requested_by", "— → member | — → member | — → member"},
		{"approve", "decided_by", "— → tester | — → tester"},
		{"request-create", "change.max_gpus", "— → 12"},
		{"pool-config", "max_nodes", "4 → 6 | — → 4"},
		{"pool-config", "boot_timeout_s", "— → 15分钟"},
		{"reservation-book", "request_id", "— → #3"},
		{"bill-issue", "total_fen", "— → ¥112.50"},
		{"role-change", "role", "项目成员 → 项目负责人 | — → 项目成员"},
		{"plan-set", "size_classes", "— → 名称 small, 卡时上限 10, 价格 ¥5.00; 名称 large, 卡时上限 0, 价格 ¥40.00"},
	} {
		if got := diffOf(tc.action, tc.field); got != tc.want {
			t.Errorf("zh %s %s = %q, want %q", tc.action, tc.field, got, tc.want)
		}
	}

	// The CSV: the same columns and values whatever the viewer's language.
	csvOf := func(lang string) string { return w.Get("/audit.csv", "Cookie", "kashi_lang="+lang).Body.String() }
	body := csvOf(phrase.LangZH)
	if body != csvOf(phrase.LangEN) {
		t.Errorf("the CSV differs between languages")
	}
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil || len(recs) < 2 || strings.Join(recs[0], ",") != "id,at,actor,action,project,subject,before,after" {
		t.Fatalf("CSV head = %q, %v", recs[:min(1, len(recs))], err)
	}
	for _, r := range recs[1:] {
		if r[3] == "project-tags" && r[6] == `{"tags":"cv,gpu-heavy"}` && r[7] == `{"tags":"cv,课题组 视觉"}` && r[5] == "project vision" {
			return
		}
	}
	t.Errorf("the CSV has no row of the tags' change with its stored subject and raw JSON: %q", recs)
}
