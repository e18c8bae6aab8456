package bills_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

func TestPricesPage(t *testing.T) {
	w := webtest.NewBillWorldPriced(t, false)
	doc := webtest.DocOf(t, w.Get("/prices", webtest.Bearer(w.Tokens["finance"])...).Result())
	if doc.Find(`[data-testid=price-form]`).Length() != 0 || doc.Find(`[data-testid=prices-readonly]`).Length() != 1 {
		t.Error("finance sees the price form, or no read-only note")
	}
	if got := doc.Find(`[data-testid=prices-missing]`).Text(); !strings.Contains(got, webtest.A100Spec) {
		t.Errorf("missing prices = %q, want %s", got, webtest.A100Spec)
	}
	for role, want := range map[string]int{"member": http.StatusForbidden, "viewer": http.StatusForbidden, "lead": http.StatusForbidden} {
		if r := w.As(role, "/prices"); r.Code != want {
			t.Errorf("GET /prices as %s = %d, want %d", role, r.Code, want)
		}
	}
	doc = webtest.DocOf(t, w.Get("/prices?spec=A100-80G&month=2026-02").Result())
	if v, _ := doc.Find(`[data-testid=price-form] input[name=spec]`).Attr("value"); v != webtest.A100Spec {
		t.Errorf("prefilled spec = %q", v)
	}
	if v, _ := doc.Find(`[data-testid=price-form] input[name=from_month]`).Attr("value"); v != "2026-02" {
		t.Errorf("prefilled month = %q", v)
	}
}

func TestPriceForm(t *testing.T) {
	w := webtest.NewBillWorldPriced(t, false)
	ctx := context.Background()
	price := url.Values{"spec": {webtest.A100Spec}, "from_month": {"2026-02"}, "rate": {"15"}, "overflow_rate": {"25.5"}}
	if r := w.FormAs("finance", "/prices", price); r.StatusCode != http.StatusForbidden {
		t.Errorf("finance's price = %d, want 403", r.StatusCode)
	}
	for field, v := range map[string]url.Values{
		"rate_fen":          {"spec": {webtest.A100Spec}, "from_month": {"2026-02"}, "rate": {"1.234"}},
		"overflow_rate_fen": {"spec": {webtest.A100Spec}, "from_month": {"2026-02"}, "rate": {"1"}, "overflow_rate": {"-1"}},
		"from_month":        {"spec": {webtest.A100Spec}, "from_month": {"2026-2"}, "rate": {"1"}},
		"project":           {"spec": {webtest.A100Spec}, "from_month": {"2026-02"}, "rate": {"1"}, "project": {"nope"}},
	} {
		r := w.Form("/prices", v)
		doc := webtest.DocOf(t, r)
		if f, _ := doc.Find(`[data-testid=price-error]`).Attr("data-field"); r.StatusCode != http.StatusUnprocessableEntity || f != field {
			t.Errorf("price form %v = %d naming %q, want 422 naming %s", v, r.StatusCode, f, field)
		}
	}
	if ps, _ := w.Store.PriceHistory(ctx); len(ps) != 0 {
		t.Fatalf("refused forms stored %v", ps)
	}
	r := w.Form("/prices", price)
	if loc := r.Header.Get("Location"); r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/prices?price=") {
		t.Fatalf("price form = %d → %q, want 303 to /prices", r.StatusCode, loc)
	}
	ps, _ := w.Store.PriceHistory(ctx)
	if len(ps) != 1 || ps[0].RateFen != 1500 || ps[0].OverflowRateFen != 2550 {
		t.Errorf("stored prices = %+v, want 1500 and 2550 fen", ps)
	}
	doc := webtest.DocOf(t, w.Get(r.Header.Get("Location")).Result())
	if doc.Find(`[data-testid=notice]`).Length() != 1 || doc.Find(`[data-testid=price-row] [data-testid=in-force]`).Length() != 1 {
		t.Error("after saving: no notice, or the price is not in force")
	}
	if doc.Find(`[data-testid=prices-missing]`).Length() != 0 {
		t.Error("A100 still listed as missing a price")
	}
	audit, _ := w.Store.AuditLog(ctx, models.AuditFilter{Limit: 10})
	if len(audit) == 0 || audit[0].Action != "price-set" {
		t.Errorf("audit = %+v, want a price-set entry", audit)
	}
}

func TestPlanForm(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	for field, v := range map[string]url.Values{
		"package_cards":                  {"project": {"vision"}, "from_month": {"2026-03"}, "mode": {"reserved"}, "package_spec": {webtest.A100Spec}, "package_cards": {"two"}},
		"package_fee_fen":                {"project": {"vision"}, "from_month": {"2026-03"}, "mode": {"reserved"}, "package_spec": {webtest.A100Spec}, "package_cards": {"2"}, "package_fee": {"x"}},
		"size_classes[1].max_card_hours": {"project": {"vision"}, "from_month": {"2026-03"}, "mode": {"per-task"}, "size_classes": {"S, 10, 5\nM, 5, 9"}},
		"project":                        {"project": {"nope"}, "from_month": {"2026-03"}, "mode": {"payg"}},
		"mode":                           {"project": {"vision"}, "from_month": {"2026-03"}, "mode": {"barter"}},
	} {
		r := w.Form("/prices/plans", v)
		doc := webtest.DocOf(t, r)
		if f, _ := doc.Find(`[data-testid=plan-error]`).Attr("data-field"); r.StatusCode != http.StatusUnprocessableEntity || f != field {
			t.Errorf("plan form %v = %d naming %q, want 422 naming %s", v, r.StatusCode, f, field)
		}
	}
	v := url.Values{"project": {"vision"}, "from_month": {"2026-03"}, "mode": {"per-task"}, "size_classes": {"S, 10, 5\nL, 0, 1,200.50"}}
	if r := w.Form("/prices/plans", v); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("plan form = %d", r.StatusCode)
	}
	ps, _ := w.Store.BillingPlans(ctx, "2026-03")
	if len(ps) != 1 {
		t.Fatalf("plans = %+v", ps)
	}
	got, _ := models.ParseSizeClasses(ps[0].SizeClasses)
	want := []models.SizeClass{{Name: "S", MaxCardHours: 10, PriceFen: 500}, {Name: "L", PriceFen: 120050}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("size classes (-want +got)\n%s", d)
	}
	doc := webtest.DocOf(t, w.Get("/prices").Result())
	if row := doc.Find(`[data-testid=plan-row][data-project=vision]`); row.Length() != 1 || !strings.Contains(row.Text(), "¥1,200.50") {
		t.Errorf("plan row = %q", row.Text())
	}
}

func TestBillMissingPriceFix(t *testing.T) {
	w := webtest.NewBillWorldPriced(t, false)
	path := "/bills/vision/" + webtest.BillMonth
	doc := webtest.DocOf(t, w.Get(path).Result())
	href, _ := doc.Find(`[data-testid=set-price-link]`).Attr("href")
	if href != "/prices?spec=A100-80G&month=2026-02#price-form" {
		t.Errorf("admin's fix link = %q", href)
	}
	doc = webtest.DocOf(t, w.Get(path, webtest.Bearer(w.Tokens["finance"])...).Result())
	if fix := doc.Find(`[data-testid=missing-fix]`); doc.Find(`[data-testid=set-price-link]`).Length() != 0 || !strings.Contains(fix.Text(), "admin") {
		t.Errorf("finance's fix = %q, want who can set it and no link", fix.Text())
	}
}

func TestAdjustmentForm(t *testing.T) {
	w := webtest.NewBillWorld(t)
	path := "/bills/vision/" + webtest.BillMonth
	before := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth)).TotalFen
	for field, v := range map[string]url.Values{
		"amount_fen": {"amount": {"12.345"}, "reason": {"typo"}},
		"reason":     {"amount": {"-5"}, "reason": {""}},
	} {
		r := w.FormAs("finance", path+"/adjustments", v)
		doc := webtest.DocOf(t, r)
		if f, _ := doc.Find(`[data-testid=adjust-error]`).Attr("data-field"); r.StatusCode != http.StatusUnprocessableEntity || f != field {
			t.Errorf("adjustment %v = %d naming %q, want 422 naming %s", v, r.StatusCode, f, field)
		}
	}
	if r := w.FormAs("member", path+"/adjustments", url.Values{"amount": {"1"}, "reason": {"x"}}); r.StatusCode != http.StatusForbidden {
		t.Errorf("member's adjustment = %d, want 403", r.StatusCode)
	}
	r := w.FormAs("finance", path+"/adjustments", url.Values{"amount": {"-12.34"}, "reason": {"GPU 3 was down on the 12th"}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("adjustment = %d", r.StatusCode)
	}
	if after := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth)).TotalFen; after != before-1234 {
		t.Errorf("total after the adjustment = %d, want %d", after, before-1234)
	}
	doc := webtest.DocOf(t, w.Get(r.Header.Get("Location"), webtest.Bearer(w.Tokens["finance"])...).Result())
	adj := doc.Find(`[data-testid=adjustment]`)
	if adj.Length() != 1 || !strings.Contains(adj.Text(), "finance") || adj.Find(`[data-testid=adjustment-amount]`).Text() != "-¥12.34" {
		t.Errorf("adjustments listed = %q", adj.Text())
	}
	if doc.Find(`[data-testid=notice]`).Length() != 1 {
		t.Error("no notice after the adjustment")
	}
	if w.FormAs("finance", path+"/issue", url.Values{}).StatusCode != http.StatusSeeOther {
		t.Fatal("issue failed")
	}
	doc = webtest.DocOf(t, w.Get(path, webtest.Bearer(w.Tokens["finance"])...).Result())
	if doc.Find(`[data-testid=adjust-form]`).Length() != 0 || doc.Find(`[data-testid=adjustment]`).Length() != 1 {
		t.Error("an issued bill still offers the adjustment form, or lost its adjustment")
	}
	if r := w.FormAs("finance", path+"/adjustments", url.Values{"amount": {"1"}, "reason": {"late"}}); r.StatusCode != http.StatusConflict {
		t.Errorf("adjustment on an issued bill = %d, want 409", r.StatusCode)
	}
}
