package bills_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// Issuing every bill of a month at once, through the API: each unissued bill is issued on
// its own and audited; a project without a price stays unissued, named with the specs it
// lacks, and does not keep the others from being issued; a second call finds nothing left;
// a month not ended or not a month issues nothing; only finance and admins may.
func TestBillsIssueAPI(t *testing.T) {
	w := webtest.NewBillWorldPriced(t, false)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	if err := w.Store.SetPrice(ctx, models.Price{ProjectID: vision.ID, Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/bills/" + webtest.BillMonth + "/issue"
	for _, role := range []string{"member", "lead", "viewer"} {
		if r := w.PostAs(role, path, "{}"); r.Code != http.StatusForbidden {
			t.Errorf("POST %s as %s = %d, want 403", path, role, r.Code)
		}
	}
	for p, want := range map[string]int{"/api/v1/bills/2026-03/issue": 422, "/api/v1/bills/2026-13/issue": 400, "/api/v1/bills/March/issue": 400} {
		if r := w.PostAs("finance", p, "{}"); r.Code != want {
			t.Errorf("POST %s = %d %s, want %d", p, r.Code, r.Body, want)
		}
	}
	if ib, _ := w.Store.IssuedBills(ctx, "2026-03"); len(ib) != 0 {
		t.Errorf("a month not ended has issued bills: %d", len(ib))
	}

	r := w.PostAs("finance", path, "{}")
	if r.Code != http.StatusOK {
		t.Fatalf("POST %s = %d %s, want 200", path, r.Code, r.Body)
	}
	var got api.BillsIssued
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Issued) != 1 || len(got.Issued[0].SHA256) != 64 {
		t.Fatalf("issued = %+v, want vision's bill with its checksum", got.Issued)
	}
	got.Issued[0].SHA256 = ""
	want := api.BillsIssued{Month: webtest.BillMonth, Issued: []api.BillIssued{{Project: "vision", TotalFen: 11250}}, TotalFen: 11250,
		NotIssued: []api.BillNotIssued{{Project: "nlp", Error: "no price for A100-80G", Field: "prices", MissingPrices: []string{"A100-80G"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("POST %s (-want +got):\n%s", path, diff)
	}
	ib, err := w.Store.IssuedBills(ctx, webtest.BillMonth)
	if err != nil || len(ib) != 1 || ib[0].ProjectID != vision.ID {
		t.Errorf("issued bills = %+v, %v; want vision's", ib, err)
	}
	if log, _ := w.Store.AuditLog(ctx, models.AuditFilter{Action: "bill-issue"}); len(log) != 1 || log[0].Actor != "finance" {
		t.Errorf("audit of the issue = %+v, want finance's issue of vision", log)
	}

	if err := w.Store.SetPrice(ctx, models.Price{Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	a := w.Post(path, "{}") // the admin's token
	if err := json.Unmarshal(a.Body.Bytes(), &got); a.Code != http.StatusOK || err != nil || len(got.Issued) != 1 || got.Issued[0].Project != "nlp" ||
		len(got.NotIssued) != 0 {
		t.Errorf("POST %s with nlp priced = %d %s, want nlp issued", path, a.Code, a.Body)
	}
	r = w.PostAs("finance", path, "{}")
	if r.Code != http.StatusOK || !strings.Contains(string(r.Body), `"issued":[]`) || !strings.Contains(string(r.Body), `"not_issued":[]`) {
		t.Errorf("POST %s with every bill issued = %d %s, want 200 with empty lists", path, r.Code, r.Body)
	}
}

// The bills page offers finance "issue all" on an ended month with bills to issue, its
// confirmation stating the month, how many bills and their total and how many lack a price;
// the form carries CSRF; the page it answers names what was issued and what not, and why, in
// the page's language. A member sees no offer and may not post it; a month not ended has none.
func TestBillsIssuePage(t *testing.T) {
	w := webtest.NewBillWorldPriced(t, false)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	if err := w.Store.SetPrice(ctx, models.Price{ProjectID: vision.ID, Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	page := "/bills?month=" + webtest.BillMonth
	doc := webtest.Parse(t, string(w.As("finance", page).Body))
	form := doc.Find(`[data-testid=issue-all-form]`)
	if form.Length() != 1 || form.Find(`input[name=_csrf]`).Length() != 1 {
		t.Fatalf("finance's bills page of %s has %d issue-all forms (with CSRF: %d), want 1", webtest.BillMonth, form.Length(),
			form.Find(`input[name=_csrf]`).Length())
	}
	if action, _ := form.Attr("action"); action != "/bills/"+webtest.BillMonth+"/issue" {
		t.Errorf("issue-all posts to %q", action)
	}
	confirm, _ := form.Attr("data-confirm")
	if want := "Issue the bills of 2026-02 now? Bills: 1, ¥112.50 in all. An issued bill is final: it can only be corrected by adjustments. Without a price, so not issued: 1."; confirm != want {
		t.Errorf("confirmation = %q, want %q", confirm, want)
	}
	if got := strings.Join(strings.Fields(form.Find(`[data-testid=issue-all-summary]`).Text()), " "); got != "Bills not issued yet: 1, ¥112.50 in all. Without a price, so not issued: 1." {
		t.Errorf("summary = %q", got)
	}
	for who, p := range map[string]string{"member": page, "finance": "/bills?month=2026-03"} {
		if n := webtest.Parse(t, string(w.As(who, p).Body)).Find(`[data-testid=issue-all-form]`).Length(); n != 0 {
			t.Errorf("%s sees %d issue-all forms on %s, want none", who, n, p)
		}
	}
	if resp := w.Form("/bills/"+webtest.BillMonth+"/issue", url.Values{}, webtest.Bearer(w.Tokens["member"])...); resp.StatusCode != http.StatusForbidden {
		t.Errorf("issue-all by a member = %d, want 403", resp.StatusCode)
	}
	if ib, _ := w.Store.IssuedBills(ctx, webtest.BillMonth); len(ib) != 0 {
		t.Fatalf("issued before finance posted: %d", len(ib))
	}

	resp := w.Form("/bills/"+webtest.BillMonth+"/issue", url.Values{}, append(webtest.Bearer(w.Tokens["finance"]), "Cookie", "kashi_lang=zh-CN")...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("issue-all by finance = %d, want 200 with the report", resp.StatusCode)
	}
	doc = webtest.DocOf(t, resp)
	rep := doc.Find(`[data-testid=issue-report]`)
	say := func(sel string) string { return strings.Join(strings.Fields(rep.Find(sel).Text()), " ") }
	if got := say(`p`); got != "已出具 2026-02 的账单：合计 ¥112.50。未出账：" {
		t.Errorf("report = %q", got)
	}
	if got := say(`[data-testid=issued-bill]`); got != "vision ¥112.50" {
		t.Errorf("issued = %q, want vision ¥112.50", got)
	}
	if got := say(`[data-testid=not-issued-bill]`); got != "nlp — A100-80G 没有价格：设置价格前无法出账。" {
		t.Errorf("not issued = %q, want nlp for lack of a price", got)
	}
	if n := doc.Find(`[data-testid=issue-all-form]`).Length(); n != 0 {
		t.Errorf("after issuing, %d issue-all forms for nlp, which has no price; want none", n)
	}
	if ib, _ := w.Store.IssuedBills(ctx, webtest.BillMonth); len(ib) != 1 || ib[0].ProjectID != vision.ID {
		t.Errorf("issued bills = %+v, want vision's", ib)
	}
}
