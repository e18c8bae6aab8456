package bills_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// problemsOf is the fields a refused form's page names (data-field of each testid), in order,
// and the field of the input that has the cursor (autofocus).
func problemsOf(doc *goquery.Document, testid string) (fields []string, focus string) {
	doc.Find(`[data-testid=` + testid + `]`).Each(func(_ int, s *goquery.Selection) {
		fields = append(fields, s.AttrOr("data-field", ""))
	})
	return fields, doc.Find(`[autofocus]`).AttrOr("name", "")
}

// TestBillFormsNameEveryProblem: the price, plan and adjustment forms name every bad field
// at once (422), the first with the cursor on its input, in Chinese by the labels the form
// shows (每卡时价格, 卡数, 金额) and never by wire names such as rate_fen or amount_fen;
// nothing is stored.
func TestBillFormsNameEveryProblem(t *testing.T) {
	w := webtest.NewBillWorld(t)
	before, _ := w.Store.PriceHistory(t.Context())
	zh := []string{"Accept-Language", "zh-CN"}
	for _, tc := range []struct {
		name, role, path, testid string
		form                     url.Values
		fields                   []string
		focus                    string
		labels                   []string
	}{
		{"price", "", "/prices", "price-error",
			url.Values{"spec": {""}, "from_month": {"2026-13"}, "rate": {"-1"}, "overflow_rate": {"abc"}},
			[]string{"spec", "from_month", "rate_fen", "overflow_rate_fen"}, "spec", []string{"卡型", "起始月份", "每卡时价格", "溢出每卡时价格"}},
		{"plan", "", "/prices/plans", "plan-error",
			url.Values{"project": {"vision"}, "from_month": {"2026-03"}, "mode": {"reserved"}, "package_spec": {""}, "package_cards": {"two"}, "package_fee": {"-5"}},
			[]string{"package_spec", "package_cards", "package_fee_fen"}, "package_spec", []string{"套餐卡型", "卡数", "月费"}},
		{"adjustment", "finance", "/bills/vision/" + webtest.BillMonth + "/adjustments", "adjust-error",
			url.Values{"amount": {"0"}, "corrects_month": {"2099-01"}, "reason": {""}},
			[]string{"amount_fen", "corrects_month", "reason"}, "amount", []string{"金额", "更正的月份", "理由"}},
		{"adjustment not read", "finance", "/bills/vision/" + webtest.BillMonth + "/adjustments", "adjust-error",
			url.Values{"amount": {"12.345"}, "reason": {""}},
			[]string{"amount_fen", "reason"}, "amount", []string{"金额", "理由"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.FormAs(tc.role, tc.path, tc.form)
			hdr := zh
			if tc.role != "" {
				hdr = append(webtest.Bearer(w.Tokens[tc.role]), zh...)
			}
			zhr := w.Form(tc.path, tc.form, hdr...)
			for _, resp := range []*http.Response{r, zhr} {
				if resp.StatusCode != http.StatusUnprocessableEntity {
					t.Fatalf("POST %s = %d, want 422", tc.path, resp.StatusCode)
				}
			}
			fields, focus := problemsOf(webtest.DocOf(t, r), tc.testid)
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("fields named (-want +got):\n%s", diff)
			}
			if focus != tc.focus {
				t.Errorf("the cursor is on %q, want %q", focus, tc.focus)
			}
			doc := webtest.DocOf(t, zhr)
			var texts []string
			doc.Find(`[data-testid=` + tc.testid + `]`).Each(func(_ int, s *goquery.Selection) { texts = append(texts, s.Text()) })
			if len(texts) != len(tc.labels) {
				t.Fatalf("zh problems = %q, want %d", texts, len(tc.labels))
			}
			for i, label := range tc.labels {
				if !strings.HasPrefix(texts[i], label+"：") || strings.Contains(texts[i], "_fen") {
					t.Errorf("zh problem %d = %q, want it to name %s and no wire name", i, texts[i], label)
				}
			}
		})
	}
	if ps, _ := w.Store.PriceHistory(t.Context()); len(ps) != len(before) {
		t.Errorf("refused forms stored prices: %v, before %v", ps, before)
	}
}

// TestPriceAPINamesEveryProblem: the price API's 422 lists every bad field, the first as
// field and error.
func TestPriceAPINamesEveryProblem(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.Post("/api/v1/prices", `{"spec": "", "from_month": "2026-02", "rate_fen": -1, "overflow_rate_fen": -2}`)
	if r.Code != http.StatusUnprocessableEntity {
		t.Fatalf("POST /api/v1/prices = %d %s, want 422", r.Code, r.Body)
	}
	var e api.Error
	if err := json.Unmarshal(r.Body.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, fe := range e.Errors {
		fields = append(fields, fe.Field)
	}
	if diff := cmp.Diff([]string{"spec", "rate_fen", "overflow_rate_fen"}, fields); diff != "" || e.Field != "spec" {
		t.Errorf("errors (-want +got):\n%s; field %q, want spec", diff, e.Field)
	}
}
