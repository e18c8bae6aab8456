package bills_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"kashi/api"
	"kashi/billing"
	"kashi/models"
	"kashi/web/webtest"
)

// errorField is the field an error answer names.
func errorField(t *testing.T, body []byte) string {
	t.Helper()
	var e api.Error
	if err := webtest.JSONStrict(string(body), &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return e.Field
}

// billOf decodes a bill answer.
func billOf(t *testing.T, r *webtest.HTTPResult) billing.Bill {
	t.Helper()
	if r.Code != http.StatusOK {
		t.Fatalf("bill answer = %d %s", r.Code, r.Body)
	}
	var b billing.Bill
	if err := webtest.JSONStrict(string(r.Body), &b); err != nil {
		t.Fatalf("bill %s: %v", r.Body, err)
	}
	return b
}

func TestBillJSONTotals(t *testing.T) {
	w := webtest.NewBillWorld(t)
	b := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth))
	if b.Project != "vision" || b.Month != webtest.BillMonth || b.Issued != nil || len(b.Lines) != 2 {
		t.Fatalf("bill = %s %s issued %v with %d lines, want vision %s unissued with 2", b.Project, b.Month, b.Issued, len(b.Lines), webtest.BillMonth)
	}
	var nominal, amount, items int64
	for _, l := range b.Lines {
		nominal += l.NominalS
		amount += l.AmountFen
		if l.AmountFen != billing.Amount(l.NominalS, l.RateFen) {
			t.Errorf("line %d: %d fen for %d s at %d", l.TaskID, l.AmountFen, l.NominalS, l.RateFen)
		}
	}
	for _, it := range b.Items {
		items += it.AmountFen
	}
	if nominal != b.NominalS || nominal != (2*3*3600+5400) {
		t.Errorf("lines hold %d s, bill %d s; want %d", nominal, b.NominalS, 2*3*3600+5400)
	}
	if amount != b.TotalFen || items != b.TotalFen || b.TotalFen != 9000+2250 {
		t.Errorf("lines %d fen, items %d fen, total %d fen; want all %d", amount, items, b.TotalFen, 9000+2250)
	}
	if b.Held.Active != 3*3600 || b.Held.Idle != 3*3600 || b.Held.NoData != 5400 || b.Held.Nominal() != b.NominalS {
		t.Errorf("held = %+v, want 3 h active, 3 h idle, 1.5 h without data", b.Held)
	}
	if len(b.Idle) != 1 || b.Idle[0].Task != webtest.BillTaskID || b.Idle[0].IdleS != 3*3600 {
		t.Errorf("idle section = %+v", b.Idle)
	}
}

func TestBillCSV(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.As("member", "/api/v1/bills/vision/"+webtest.BillMonth+"?format=csv")
	if r.Code != http.StatusOK {
		t.Fatalf("GET csv = %d %s", r.Code, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != "attachment; filename=kashi-vision-2026-02.csv" {
		t.Errorf("Content-Disposition = %q", cd)
	}
	if !bytes.HasPrefix(r.Body, []byte("\uFEFF")) {
		t.Fatalf("CSV does not start with the UTF-8 byte-order mark: %q", r.Body[:min(len(r.Body), 10)])
	}
	rows, err := csv.NewReader(bytes.NewReader(r.Body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, row := range rows[1:] {
		kinds[row[0]]++
		if row[1] != "vision" || row[2] != webtest.BillMonth {
			t.Errorf("row %v is not vision's %s", row, webtest.BillMonth)
		}
	}
	if kinds["明细 line"] != 2 || kinds["合计 total"] != 1 || kinds["小计 spec"] != 1 {
		t.Errorf("CSV row kinds = %v, want 2 lines, a spec subtotal and a total", kinds)
	}
	if rows[0][0] != billing.CSVHeader[0] {
		t.Errorf("header = %v", rows[0])
	}
}

func TestBillXLSX(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"?format=xlsx")
	if r.Code != http.StatusOK {
		t.Fatalf("GET xlsx = %d %s", r.Code, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, "kashi-vision-2026-02.xlsx") {
		t.Errorf("Content-Disposition = %q", cd)
	}
	f, err := excelize.OpenReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := strings.Join(f.GetSheetList(), ","); got != "Summary,Lines,Idle,Models" {
		t.Errorf("sheets = %s, want Summary,Lines,Idle,Models", got)
	}
	lines, _ := f.GetRows("Lines")
	idle, _ := f.GetRows("Idle")
	if len(lines) != 3 || len(idle) != 2 || lines[1][3] != webtest.BillTaskID {
		t.Errorf("Lines has %d rows (want 3), Idle %d (want 2); first line %v", len(lines), len(idle), lines[1])
	}
}

func TestBillIssueFreezes(t *testing.T) {
	w := webtest.NewBillWorld(t)
	before := w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth).Body
	r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/issue", "{}")
	if r.Code != http.StatusCreated {
		t.Fatalf("issue = %d %s, want 201", r.Code, r.Body)
	}
	if r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/issue", "{}"); r.Code != http.StatusConflict {
		t.Errorf("issue twice = %d %s, want 409", r.Code, r.Body)
	}
	for _, format := range []string{"json", "csv", "xlsx"} {
		path := "/api/v1/bills/vision/" + webtest.BillMonth + "?format=" + format
		first, second := w.As("finance", path), w.As("member", path)
		if first.Code != http.StatusOK || !bytes.Equal(first.Body, second.Body) {
			t.Errorf("%s of the issued bill: %d, and a second download differs: %v", format, first.Code, !bytes.Equal(first.Body, second.Body))
		}
	}
	b := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth))
	if b.Issued == nil || b.Issued.By != "finance" || len(b.Issued.SHA256) != 64 {
		t.Errorf("issued = %+v", b.Issued)
	}
	if bytes.Equal(before, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth).Body) {
		t.Errorf("the issued bill's JSON does not say it is issued")
	}
	// A correction of an issued month goes on a later bill.
	adj := `{"amount_fen": -500, "reason": "outage credit"}`
	if r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/adjustments", adj); r.Code != http.StatusConflict {
		t.Errorf("adjustment on the issued month = %d %s, want 409", r.Code, r.Body)
	}
	r = w.PostAs("finance", "/api/v1/bills/vision/2026-03/adjustments", `{"amount_fen": -500, "reason": "outage credit", "corrects_month": "2026-02"}`)
	if r.Code != http.StatusCreated {
		t.Fatalf("adjustment on March = %d %s, want 201", r.Code, r.Body)
	}
	march := billOf(t, w.As("finance", "/api/v1/bills/vision/2026-03"))
	if march.TotalFen != -500 || len(march.AdjustmentIDs) != 1 {
		t.Errorf("March = %d fen with adjustments %v, want -500 and one", march.TotalFen, march.AdjustmentIDs)
	}
}

func TestBillBadMonths(t *testing.T) {
	w := webtest.NewBillWorld(t)
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/api/v1/bills/vision/2026-13", http.StatusBadRequest},
		{"GET", "/api/v1/bills/vision/26-01", http.StatusBadRequest},
		{"GET", "/api/v1/bills/vision/2026-04", http.StatusUnprocessableEntity},
		{"GET", "/api/v1/bills/2026-13?format=csv", http.StatusBadRequest},
		{"GET", "/api/v1/bills/2026-04", http.StatusUnprocessableEntity},
		{"POST", "/api/v1/bills/vision/2026-13/issue", http.StatusBadRequest},
		{"POST", "/api/v1/bills/vision/2026-04/issue", http.StatusUnprocessableEntity},
		{"POST", "/api/v1/bills/vision/2026-03/issue", http.StatusUnprocessableEntity}, // not ended
		{"POST", "/api/v1/bills/vision/2026-13/adjustments", http.StatusBadRequest},
		{"POST", "/api/v1/bills/vision/2026-04/adjustments", http.StatusUnprocessableEntity},
		{"GET", "/bills?month=2026-13", http.StatusBadRequest},
		{"GET", "/bills/vision/2026-04", http.StatusUnprocessableEntity},
	} {
		var r *webtest.HTTPResult
		if tc.method == "GET" {
			r = w.As("finance", tc.path)
		} else {
			r = w.PostAs("finance", tc.path, `{"amount_fen": 100, "reason": "x"}`)
		}
		if r.Code != tc.code {
			t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, r.Code, r.Body, tc.code)
			continue
		}
		if strings.HasPrefix(tc.path, "/api/") {
			if f := errorField(t, r.Body); f != "month" {
				t.Errorf("%s %s names field %q, want month", tc.method, tc.path, f)
			}
		} else if !strings.Contains(strings.ToLower(string(r.Body)), "month") { // by its label, "Month"
			t.Errorf("%s %s: the error page does not name the month", tc.method, tc.path)
		}
	}
	ctx := context.Background()
	for _, m := range []string{"2026-03", "2026-04"} {
		if ib, err := w.Store.IssuedBills(ctx, m); err != nil || len(ib) != 0 {
			t.Errorf("IssuedBills(%s) = %v, %v; want none", m, ib, err)
		}
	}
	if as, err := w.Store.Adjustments(ctx, 0, "2026-04"); err != nil || len(as) != 0 {
		t.Errorf("Adjustments(2026-04) = %v, %v; want none", as, err)
	}
	if r := w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"?format=pdf"); r.Code != http.StatusBadRequest || errorField(t, r.Body) != "format" {
		t.Errorf("?format=pdf = %d %s, want 400 naming format", r.Code, r.Body)
	}
}

func TestBillAccess(t *testing.T) {
	w := webtest.NewBillWorld(t)
	path := "/api/v1/bills/%s/" + webtest.BillMonth
	at := func(p string) string { return strings.Replace(path, "%s", p, 1) }
	for _, tc := range []struct {
		role, method, path string
		code               int
	}{
		{"viewer", "GET", at("vision"), http.StatusForbidden},
		{"viewer", "GET", "/bills", http.StatusForbidden},
		{"member", "GET", at("vision"), http.StatusOK},
		{"member", "GET", at("nlp"), http.StatusNotFound},
		{"member", "GET", at("no-such"), http.StatusNotFound},
		{"member", "GET", "/bills/nlp/" + webtest.BillMonth, http.StatusNotFound},
		{"member", "GET", "/api/v1/bills/" + webtest.BillMonth, http.StatusForbidden},
		{"member", "POST", at("vision") + "/issue", http.StatusForbidden},
		{"lead", "POST", at("nlp") + "/issue", http.StatusForbidden},
		{"lead", "POST", at("nlp") + "/adjustments", http.StatusForbidden},
		{"lead", "GET", at("nlp"), http.StatusOK},
		{"lead", "GET", at("vision"), http.StatusNotFound},
		{"finance", "GET", at("nlp"), http.StatusOK},
		{"finance", "GET", at("vision"), http.StatusOK},
		{"finance", "GET", "/api/v1/bills/" + webtest.BillMonth, http.StatusOK},
		{"finance", "POST", "/api/v1/prices", http.StatusForbidden},
	} {
		var r *webtest.HTTPResult
		if tc.method == "GET" {
			r = w.As(tc.role, tc.path)
		} else {
			r = w.PostAs(tc.role, tc.path, "{}")
		}
		if r.Code != tc.code {
			t.Errorf("%s %s as %s = %d %s, want %d", tc.method, tc.path, tc.role, r.Code, r.Body, tc.code)
		}
	}
	// Another project's bill reads like one that does not exist.
	if a, b := w.As("member", at("nlp")).Body, w.As("member", at("no-such")).Body; !bytes.Equal(a, b) {
		t.Errorf("nlp = %s, no-such = %s; want the same answer", a, b)
	}
	var all struct {
		Bills    []billing.Bill `json:"bills"`
		TotalFen int64          `json:"total_fen"`
	}
	r := w.As("finance", "/api/v1/bills/"+webtest.BillMonth)
	if err := json.Unmarshal(r.Body, &all); err != nil || len(all.Bills) != 2 || all.TotalFen != 9000+2250+3000 {
		t.Errorf("all bills = %d bills, %d fen, %v; want 2 and %d", len(all.Bills), all.TotalFen, err, 9000+2250+3000)
	}
	r = w.As("finance", "/api/v1/bills/"+webtest.BillMonth+"?format=csv")
	if cd := r.Header.Get("Content-Disposition"); r.Code != http.StatusOK || !strings.Contains(cd, "kashi-all-projects-2026-02.csv") {
		t.Errorf("all bills CSV = %d, %q", r.Code, cd)
	}
}

func TestPricesAndPlans(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	before, _ := w.Store.Prices(ctx, "2026-05")
	for body, field := range map[string]string{
		`{"spec": "H800-80G", "from_month": "2026-05", "rate_fen": -1}`:                         "rate_fen",
		`{"spec": "H800-80G", "from_month": "2026-05", "rate_fen": 1, "overflow_rate_fen": -3}`: "overflow_rate_fen",
		`{"spec": "H800-80G", "from_month": "2026-5", "rate_fen": 1}`:                           "from_month",
		`{"spec": "", "from_month": "2026-05", "rate_fen": 1}`:                                  "spec",
		`{"project": "nope", "spec": "H800-80G", "from_month": "2026-05", "rate_fen": 1}`:       "project",
		`{"spec": "H800-80G", "month_from": "2026-05", "rate_fen": 1}`:                          "month_from",
	} {
		r := w.Post("/api/v1/prices", body)
		if r.Code/100 != 4 || errorField(t, r.Body.Bytes()) != field {
			t.Errorf("POST /api/v1/prices %s = %d %s, want 4xx naming %s", body, r.Code, r.Body, field)
		}
	}
	if after, _ := w.Store.Prices(ctx, "2026-05"); len(after) != len(before) {
		t.Errorf("refused prices changed the list: %v → %v", before, after)
	}
	if r := w.Post("/api/v1/prices", `{"project": "vision", "spec": "H800-80G", "from_month": "2026-05", "rate_fen": 3000, "overflow_rate_fen": 4000}`); r.Code != http.StatusOK {
		t.Fatalf("POST /api/v1/prices = %d %s", r.Code, r.Body)
	}
	if after, _ := w.Store.Prices(ctx, "2026-05"); len(after) != len(before)+1 {
		t.Errorf("prices after = %v", after)
	}

	vision, _ := w.Store.ProjectByName(ctx, "vision")
	planPath := "/api/v1/projects/" + strconv.FormatInt(vision.ID, 10) + "/plan"
	for body, field := range map[string]string{
		`{"from_month": "2026-05", "mode": "package", "package_spec": "A100-80G", "package_cards": -1}`:                        "package_cards",
		`{"from_month": "2026-05", "mode": "package", "package_spec": "A100-80G", "package_cards": 2, "package_fee_fen": -5}`:  "package_fee_fen",
		`{"from_month": "2026-05", "mode": "per-task", "unit_price_fen": -2}`:                                                  "unit_price_fen",
		`{"from_month": "2026-05", "mode": "barter"}`:                                                                          "mode",
		`{"from_month": "2026-05", "mode": "per-task", "size_classes": [{"name": "S", "max_card_hours": 1, "price_fen": -1}]}`: "size_classes[0].price_fen",
	} {
		r := w.Post(planPath, body)
		if r.Code != http.StatusUnprocessableEntity || errorField(t, r.Body.Bytes()) != field {
			t.Errorf("POST plan %s = %d %s, want 422 naming %s", body, r.Code, r.Body, field)
		}
	}
	if ps, _ := w.Store.BillingPlans(ctx, "2026-05"); len(ps) != 0 {
		t.Errorf("refused plans stored %v", ps)
	}
	if r := w.Post("/api/v1/projects/999/plan", `{"from_month": "2026-05", "mode": "payg"}`); r.Code != http.StatusNotFound {
		t.Errorf("plan of an unknown project = %d %s, want 404", r.Code, r.Body)
	}
	r := w.Post(planPath, `{"from_month": "2026-05", "mode": "package", "package_spec": "A100-80G", "package_cards": 2, "package_fee_fen": 100000}`)
	if r.Code != http.StatusOK {
		t.Fatalf("POST plan = %d %s", r.Code, r.Body)
	}
	if ps, _ := w.Store.BillingPlans(ctx, "2026-05"); len(ps) != 1 || ps[0].Mode != models.BillReserved || ps[0].PackageCards != 2 {
		t.Errorf("plans = %+v, want vision's reserved package of 2 cards", ps)
	}
	if r := w.PostAs("finance", planPath, `{"from_month": "2026-05", "mode": "payg"}`); r.Code != http.StatusForbidden {
		t.Errorf("plan by finance = %d, want 403", r.Code)
	}
}

func TestBillsPage(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.As("finance", "/bills")
	if r.Code != http.StatusOK {
		t.Fatalf("GET /bills = %d %s", r.Code, r.Body)
	}
	doc := webtest.Parse(t, string(r.Body))
	if v := doc.Find(`[data-testid=month-picker] input[name=month]`).AttrOr("value", ""); v != webtest.BillMonth {
		t.Errorf("the month picker shows %q, want the last month that ended, %s", v, webtest.BillMonth)
	}
	rows := webtest.Attrs(doc, `[data-testid=bill-row]`, "data-project")
	if strings.Join(rows, ",") != "nlp,vision" {
		t.Errorf("finance sees bills of %v, want nlp and vision", rows)
	}
	amount := strings.TrimSpace(doc.Find(`[data-testid=bill-row][data-project=vision] [data-testid=bill-amount]`).Text())
	if amount != "¥112.50" {
		t.Errorf("vision's amount = %q, want ¥112.50", amount)
	}
	if doc.Find(`[data-testid=all-downloads] a[href="/api/v1/bills/2026-02?format=csv"]`).Length() != 1 {
		t.Errorf("finance has no download of every project's bills")
	}
	if doc.Find(`[data-testid=bills-total] .money`).Text() != "¥142.50" {
		t.Errorf("total = %q, want ¥142.50", doc.Find(`[data-testid=bills-total] .money`).Text())
	}

	doc = webtest.Parse(t, string(w.As("member", "/bills?month=2026-02").Body))
	if rows := webtest.Attrs(doc, `[data-testid=bill-row]`, "data-project"); strings.Join(rows, ",") != "vision" {
		t.Errorf("member sees bills of %v, want vision only", rows)
	}
	if doc.Find(`[data-testid=all-downloads]`).Length() != 0 {
		t.Errorf("a member sees the download of every project's bills")
	}
	if doc.Find(`a[href="/api/v1/bills/vision/2026-02?format=xlsx"]`).Length() != 1 {
		t.Errorf("no XLSX download of vision's bill")
	}
}

func TestBillPage(t *testing.T) {
	w := webtest.NewBillWorld(t)
	path := "/bills/vision/" + webtest.BillMonth
	r := w.As("finance", path)
	if r.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, r.Code, r.Body)
	}
	doc := webtest.Parse(t, string(r.Body))
	if n := doc.Find(`[data-testid=bill-line]`).Length(); n != 2 {
		t.Errorf("%d bill lines, want 2", n)
	}
	idle := doc.Find(`[data-testid=idle-section]`)
	if idle.Length() != 1 || idle.Find(`[data-testid=idle-line]`).Length() != 1 || !strings.Contains(idle.Text(), webtest.BillTaskID) {
		t.Errorf("idle section = %q", idle.Text())
	}
	if doc.Find(`[data-testid=bill-total]`).Text() != "¥112.50" {
		t.Errorf("total = %q", doc.Find(`[data-testid=bill-total]`).Text())
	}
	if doc.Find(`[data-testid=issue-button]`).Length() != 1 || doc.Find(`[data-testid=issue-form] input[name=_csrf]`).Length() != 1 {
		t.Errorf("finance sees no issue form with a CSRF field on an unissued, ended month")
	}
	if d := webtest.Parse(t, string(w.As("member", path).Body)); d.Find(`[data-testid=issue-button]`).Length() != 0 {
		t.Errorf("a member sees the issue button")
	}
	if d := webtest.Parse(t, string(w.As("finance", "/bills/vision/2026-03").Body)); d.Find(`[data-testid=issue-button]`).Length() != 0 {
		t.Errorf("the issue button shows on a month that has not ended")
	}

	resp := w.Form(path+"/issue", url.Values{}, webtest.Bearer(w.Tokens["finance"])...)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != path+"?issued=1" {
		t.Fatalf("issue form = %d → %q, want 303 to the bill", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc = webtest.Parse(t, string(w.As("finance", path+"?issued=1").Body))
	if doc.Find(`[data-testid=notice]`).Length() != 1 || doc.Find(`[data-testid=issued]`).Length() != 1 ||
		len(strings.TrimSpace(doc.Find(`[data-testid=checksum]`).Text())) != 64 || doc.Find(`[data-testid=issue-button]`).Length() != 0 {
		t.Errorf("after issuing: notice %d, issued %d, checksum %q, button %d", doc.Find(`[data-testid=notice]`).Length(),
			doc.Find(`[data-testid=issued]`).Length(), doc.Find(`[data-testid=checksum]`).Text(), doc.Find(`[data-testid=issue-button]`).Length())
	}
	if !strings.Contains(doc.Find(`[data-testid=issued]`).Text(), "finance") {
		t.Errorf("issued = %q, want it to name finance", doc.Find(`[data-testid=issued]`).Text())
	}
	resp = w.Form(path+"/issue", url.Values{}, webtest.Bearer(w.Tokens["finance"])...)
	if resp.StatusCode != http.StatusConflict || webtest.DocOf(t, resp).Find(`[data-testid=bill-error]`).Length() != 1 {
		t.Errorf("issue form twice = %d, want 409 with the error on the page", resp.StatusCode)
	}
	if resp := w.Form(path+"/issue", url.Values{}, webtest.Bearer(w.Tokens["member"])...); resp.StatusCode != http.StatusForbidden {
		t.Errorf("issue form by a member = %d, want 403", resp.StatusCode)
	}
}

func TestBillsPageGroupsByTag(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	nlp, _ := w.Store.ProjectByName(ctx, "nlp")
	for id, tags := range map[int64][]string{vision.ID: {"cv", "paper-2026"}, nlp.ID: {"paper-2026"}} {
		if err := w.Store.SetProjectTags(ctx, "tester", id, tags, webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	doc := webtest.Parse(t, string(w.As("finance", "/bills?month="+webtest.BillMonth).Body))
	groups := map[string][]string{}
	doc.Find(`[data-testid=bill-group]`).Each(func(_ int, g *goquery.Selection) {
		tag := g.AttrOr("data-tag", "")
		g.Find(`[data-testid=bill-row]`).Each(func(_ int, r *goquery.Selection) {
			groups[tag] = append(groups[tag], r.AttrOr("data-project", ""))
		})
	})
	want := map[string][]string{"cv": {"vision"}, "paper-2026": {"nlp", "vision"}}
	if diff := cmp.Diff(want, groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	// Each project counts once in the total, however many tags it has.
	if got := doc.Find(`[data-testid=bills-total] .money`).Text(); got != "¥142.50" {
		t.Errorf("total = %q, want ¥142.50", got)
	}
	var all struct {
		Bills []billing.Bill `json:"bills"`
	}
	if err := json.Unmarshal(w.As("finance", "/api/v1/bills/"+webtest.BillMonth).Body, &all); err != nil || len(all.Bills) != 2 ||
		strings.Join(all.Bills[1].Tags, ",") != "cv,paper-2026" {
		t.Errorf("all bills = %+v, %v; want vision tagged cv and paper-2026", all.Bills, err)
	}
}

// TestIssuedMonthKeepsItsGroups: the bills page groups an issued bill by the tags it was
// issued with, not by its project's tags of today, so an issued month reads the same after
// its projects are retagged; an open bill follows today's tags.
func TestIssuedMonthKeepsItsGroups(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	groups := func() map[string][]string {
		doc := webtest.Parse(t, string(w.As("finance", "/bills?month="+webtest.BillMonth).Body))
		out := map[string][]string{}
		doc.Find(`[data-testid=bill-group]`).Each(func(_ int, g *goquery.Selection) {
			tag := g.AttrOr("data-tag", "")
			g.Find(`[data-testid=bill-row]`).Each(func(_ int, r *goquery.Selection) {
				out[tag] = append(out[tag], r.AttrOr("data-project", ""))
			})
		})
		return out
	}
	if err := w.Store.SetProjectTags(ctx, "tester", vision.ID, []string{"cv"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/issue", ""); r.Code != http.StatusCreated {
		t.Fatalf("issue = %d %s", r.Code, r.Body)
	}
	issued := groups()
	if want := map[string][]string{"cv": {"vision"}, "": {"nlp"}}; !cmp.Equal(issued, want) {
		t.Fatalf("groups when issued = %v, want %v", issued, want)
	}
	if err := w.Store.SetProjectTags(ctx, "tester", vision.ID, []string{"retagged"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	nlp, _ := w.Store.ProjectByName(ctx, "nlp")
	if err := w.Store.SetProjectTags(ctx, "tester", nlp.ID, []string{"retagged"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"cv": {"vision"}, "retagged": {"nlp"}}
	if got := groups(); !cmp.Equal(got, want) {
		t.Errorf("groups after retagging = %v, want %v (the issued vision as issued, the open nlp as tagged now)", got, want)
	}
}

// ?format=csv&rows=lines is the task lines only, for a bill and for a month of bills: every
// row a line, so the amount column adds up to the lines' amounts and never counts a subtotal
// or the total again. rows with another value or format is 400 naming rows.
func TestBillLinesCSV(t *testing.T) {
	w := webtest.NewBillWorld(t)
	lines := func(path string) [][]string {
		t.Helper()
		r := w.As("finance", path)
		if r.Code != http.StatusOK || !strings.Contains(r.Header.Get("Content-Disposition"), "-lines.csv") {
			t.Fatalf("GET %s = %d %q %s", path, r.Code, r.Header.Get("Content-Disposition"), r.Body)
		}
		rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(r.Body, []byte("\uFEFF")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	for _, tc := range []struct{ path, project string }{
		{"/api/v1/bills/vision/" + webtest.BillMonth + "?format=csv&rows=lines", "vision"},
		{"/api/v1/bills/" + webtest.BillMonth + "?format=csv&rows=lines", ""},
	} {
		rows := lines(tc.path)
		b := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth))
		var sum, want int64
		for _, l := range b.Lines {
			want += l.AmountFen
		}
		n := 0
		for _, row := range rows[1:] {
			if row[0] != "明细 line" {
				t.Errorf("%s: row %v is not a line", tc.path, row)
			}
			if row[1] != "vision" {
				continue
			}
			n++
			yuan, err := strconv.ParseFloat(row[24], 64)
			if err != nil {
				t.Fatalf("amount %q: %v", row[24], err)
			}
			sum += int64(yuan*100 + 0.5)
		}
		if n != len(b.Lines) || sum != want {
			t.Errorf("%s: vision's %d rows add up to %d fen, want its %d lines' %d", tc.path, n, sum, len(b.Lines), want)
		}
	}
	for _, q := range []string{"?format=csv&rows=all", "?format=xlsx&rows=lines", "?rows=lines"} {
		r := w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth+q)
		if r.Code != http.StatusBadRequest || errorField(t, r.Body) != "rows" {
			t.Errorf("GET %s = %d %s, want 400 naming rows", q, r.Code, r.Body)
		}
	}
}

// An issued bill's workbook says it was made by Kashi when it was issued (not excelize's
// "xuri" of 2006), and names its sheets in the download's language; it downloads the same
// bytes again in either language.
func TestBillXLSXPropertiesAndSheetNames(t *testing.T) {
	w := webtest.NewBillWorld(t)
	if r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/issue", "{}"); r.Code != http.StatusCreated {
		t.Fatalf("issue = %d %s", r.Code, r.Body)
	}
	issued := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth)).Issued.At
	path := "/api/v1/bills/vision/" + webtest.BillMonth + "?format=xlsx"
	for lang, want := range map[string][]string{
		"en":    {"Summary", "Lines", "Idle", "Models"},
		"zh-CN": {"汇总", "明细", "闲置", "模型"},
	} {
		get := func() []byte {
			r := w.Get(path, append(webtest.Bearer(w.Tokens["finance"]), "Accept-Language", lang)...)
			if r.Code != http.StatusOK {
				t.Fatalf("GET %s (%s) = %d %s", path, lang, r.Code, r.Body)
			}
			return r.Body.Bytes()
		}
		body := get()
		f, err := excelize.OpenReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		props, err := f.GetDocProps()
		if err != nil {
			t.Fatal(err)
		}
		if props.Creator != "Kashi" || props.LastModifiedBy != "Kashi" || props.Created != issued.UTC().Format(time.RFC3339) ||
			props.Modified != props.Created {
			t.Errorf("%s: properties = creator %q, last modified by %q, created %q, modified %q; want Kashi and the issue time %s",
				lang, props.Creator, props.LastModifiedBy, props.Created, props.Modified, issued.UTC().Format(time.RFC3339))
		}
		if got := f.GetSheetList(); !cmp.Equal(got, want) {
			t.Errorf("%s: sheets = %v, want %v", lang, got, want)
		}
		if !bytes.Equal(body, get()) {
			t.Errorf("%s: a second download of the issued bill differs", lang)
		}
	}
}
