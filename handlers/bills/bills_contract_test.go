package bills_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"kashi/billing"
	"kashi/models"
	"kashi/web/webtest"
)

// TestQuotaOverflowRate: quota overflow is priced at the rate written into the project's
// quota, not the price list's; without a rate in the quota the price list's applies.
func TestQuotaOverflowRate(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	nlp, _ := w.Store.ProjectByName(ctx, "nlp")
	burst := w.Create(webtest.Task("burst").Of("nlp").Ready(), webtest.Feb(14, 0))
	if err := w.Store.PlaceTask(ctx, burst.ID, w.GPUIDs(webtest.UUIDOf("a100-01", 3)), true, "over quota", webtest.Feb(14, 0)); err != nil {
		t.Fatal(err)
	}
	if err := w.Store.ReportTaskStatus(ctx, w.Node.ID, burst.ID, models.TaskReport{State: models.ReportExited, TS: webtest.Feb(14, 2)}, webtest.Feb(14, 2)); err != nil {
		t.Fatal(err)
	}
	overflowLine := func() billing.Line {
		return lineOf(t, billOf(t, w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth)), burst.ID)
	}
	if l := overflowLine(); l.Pricing != billing.PricingOverflow || l.RateFen != webtest.OverflowF {
		t.Fatalf("without a quota rate: %s at %d fen, want overflow at the price list's %d", l.Pricing, l.RateFen, webtest.OverflowF)
	}
	const contract = 4000
	body := `{"spec": "A100-80G", "max_gpus": 1, "budget_card_hours": 10, "starts_at": "2026-01-01T00:00:00Z",
		"ends_at": "2027-01-01T00:00:00Z", "overflow_allowed": true, "overflow_rate_fen": ` + strconv.Itoa(contract) + `}`
	if r := w.Post("/api/v1/projects/"+strconv.FormatInt(nlp.ID, 10)+"/quotas", body); r.Code != http.StatusOK {
		t.Fatalf("POST quota = %d %s", r.Code, r.Body)
	}
	l := overflowLine()
	if l.RateFen != contract || l.AmountFen != 2*contract {
		t.Errorf("with the quota's rate: %d fen/card-hour, %d fen; want %d and %d", l.RateFen, l.AmountFen, contract, 2*contract)
	}
}

// TestBillDownloadsCarryTags: a project's tags are in its bill's JSON, CSV and XLSX, in the
// all-projects download, and in its issued bill, frozen: tags changed later do not change it.
func TestBillDownloadsCarryTags(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	tagsPath := "/api/v1/projects/" + strconv.FormatInt(vision.ID, 10) + "/tags"
	if r := w.Post(tagsPath, `{"tags": ["视觉组", "cc-7"]}`); r.Code != http.StatusNoContent {
		t.Fatalf("POST tags = %d %s", r.Code, r.Body)
	}
	want := []string{"cc-7", "视觉组"}
	path := "/api/v1/bills/vision/" + webtest.BillMonth
	if b := billOf(t, w.As("finance", path)); !cmp.Equal(b.Tags, want) {
		t.Errorf("bill JSON tags = %v, want %v", b.Tags, want)
	}
	r := w.As("finance", path+"?format=csv")
	rows, err := csv.NewReader(bytes.NewReader(r.Body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[3] != billing.TagsText(want) {
			t.Errorf("CSV row %v: tags %q, want %q", row[:4], row[3], billing.TagsText(want))
		}
	}
	r = w.As("finance", path+"?format=xlsx")
	f, err := excelize.OpenReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := f.GetRows(billing.SheetLines)
	summary, _ := f.GetRows(billing.SheetSummary)
	for _, row := range append(lines[1:], summary[1:]...) {
		if row[len(row)-1] != billing.TagsText(want) {
			t.Errorf("XLSX row %v does not end with the tags", row)
		}
	}
	var month struct{ Bills []billing.Bill }
	if err := json.Unmarshal(w.As("finance", "/api/v1/bills/"+webtest.BillMonth).Body, &month); err != nil {
		t.Fatal(err)
	}
	for _, b := range month.Bills {
		if b.Project == "vision" && !cmp.Equal(b.Tags, want) || b.Project == "nlp" && len(b.Tags) != 0 {
			t.Errorf("all-projects bill %s tags = %v", b.Project, b.Tags)
		}
	}
	if r := w.PostAs("finance", path+"/issue", ""); r.Code != http.StatusCreated {
		t.Fatalf("issue = %d %s", r.Code, r.Body)
	}
	if r := w.Post(tagsPath, `{"tags": ["renamed"]}`); r.Code != http.StatusNoContent {
		t.Fatalf("POST tags = %d %s", r.Code, r.Body)
	}
	if b := billOf(t, w.As("finance", path)); b.Issued == nil || !cmp.Equal(b.Tags, want) {
		t.Errorf("issued bill tags = %v (issued %v), want the frozen %v", b.Tags, b.Issued, want)
	}
}

// TestPackageUnusedHoursSoFar: a running month's unused package hours are the cover until
// now less the hours used, not the whole month's; once the month ends they are final.
func TestPackageUnusedHoursSoFar(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	r := w.Post("/api/v1/projects/"+strconv.FormatInt(vision.ID, 10)+"/plan",
		`{"from_month": "2026-03", "mode": "package", "package_spec": "A100-80G", "package_cards": 2, "package_fee_fen": 100000}`)
	if r.Code != http.StatusOK {
		t.Fatalf("POST plan = %d %s", r.Code, r.Body)
	}
	// March began at 16:00 UTC on 28 February (Asia/Shanghai); t0 is 09:00 UTC on 2 March.
	march := int64(31 * 24 * 3600)
	soFar := int64(webtest.T0.Sub(time.Date(2026, 2, 28, 16, 0, 0, 0, time.UTC)) / time.Second)
	for now, want := range map[time.Time]billing.Package{
		webtest.T0: {Spec: webtest.A100Spec, Cards: 2, FeeFen: 100000, OverflowRateFen: webtest.OverflowF, CoveredS: 2 * march, UnusedS: 2 * soFar},
		time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC): {Spec: webtest.A100Spec, Cards: 2, FeeFen: 100000, OverflowRateFen: webtest.OverflowF,
			CoveredS: 2 * march, UnusedS: 2 * march},
	} {
		w.SetNow(now)
		b := billOf(t, w.As("finance", "/api/v1/bills/vision/2026-03"))
		if b.Package == nil {
			t.Fatalf("as of %s: no package in %+v", now, b)
		}
		if diff := cmp.Diff(want, *b.Package); diff != "" {
			t.Errorf("as of %s: package (-want +got):\n%s", now, diff)
		}
	}
}
