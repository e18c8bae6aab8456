package people_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

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
	// The admin's new quota: its fields that are set, none of its empty ones or bookkeeping.
	doc = page("?actor=tester&action=quota-change")
	var fields []string
	doc.Find(`[data-testid=audit-field]`).Each(func(_ int, s *goquery.Selection) { fields = append(fields, s.Text()) })
	if got := strings.Join(fields, "|"); got != "card-hours a month|ends|GPUs at once|spec|starts" {
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
