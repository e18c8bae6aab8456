package bills_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/billing"
	"kashi/models"
	"kashi/web/webtest"
)

// issuedReads is everything an issued month shows: the bills page's table (its groups and
// rows, as text, with each group's tag), a project's bill page (as text), the project's bill
// from the API as JSON, CSV and XLSX, and the month's bills from the API in the three.
type issuedReads struct {
	listGroups, listText, billText string
	json, csv, xlsx                []byte
	monthJSON, monthCSV, monthXLSX []byte
}

// readIssued reads February 2026 as finance sees it, the project's bill at the name its
// URLs now take.
func readIssued(t *testing.T, w webtest.BillWorld, project string) issuedReads {
	t.Helper()
	get := func(path string) []byte {
		t.Helper()
		r := w.As("finance", path)
		if r.Code != http.StatusOK {
			t.Fatalf("GET %s = %d %s, want 200", path, r.Code, r.Body)
		}
		return r.Body
	}
	page := func(path, sel string) *goquery.Selection {
		t.Helper()
		d, err := goquery.NewDocumentFromReader(bytes.NewReader(get(path)))
		if err != nil {
			t.Fatal(err)
		}
		return d.Find(sel)
	}
	words := func(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
	var r issuedReads
	list := page("/bills?month="+webtest.BillMonth, ".bills-table")
	list.Find(`[data-testid=bill-group]`).Each(func(_ int, g *goquery.Selection) {
		r.listGroups += g.AttrOr("data-tag", "") + ": " + words(g.Find(`[data-testid=bill-row] th`)) + "; "
	})
	r.listText = words(list)
	r.billText = words(page("/bills/"+project+"/"+webtest.BillMonth, ".billing"))
	v := w.BillViews(project, webtest.BillMonth)
	r.json, r.csv, r.xlsx = v.JSON, v.CSV, v.XLSX
	month := "/api/v1/bills/" + webtest.BillMonth
	r.monthJSON, r.monthCSV, r.monthXLSX = get(month), get(month+"?format=csv"), get(month+"?format=xlsx")
	return r
}

// TestIssuedMonthReadsAsIssued: February is issued for both projects while vision is tagged
// cv; afterwards the projects are tagged anew, vision is renamed, the price list's A100 rates
// change for February, vision gets a price of its own and the metering thresholds change.
// The issued month reads exactly as before on every surface: the bills page groups it by
// the tags it was issued with, the bill page shows the same price versions and figures
// under its issued name, and the downloads of the bill and of the month are the same bytes.
func TestIssuedMonthReadsAsIssued(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	st, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := webtest.NewBillWorldOn(t, webtest.NewServerOn(t, st, webtest.TestCfg()), true)
	vision, _ := st.ProjectByName(ctx, "vision")
	nlp, _ := st.ProjectByName(ctx, "nlp")
	if err := st.SetProjectTags(ctx, "tester", vision.ID, []string{"cv"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"vision", "nlp"} {
		if r := w.PostAs("finance", "/api/v1/bills/"+p+"/"+webtest.BillMonth+"/issue", ""); r.Code != http.StatusCreated {
			t.Fatalf("issue %s = %d %s", p, r.Code, r.Body)
		}
	}
	before := readIssued(t, w, "vision")
	if !strings.Contains(before.listGroups, "cv: vision") || !strings.Contains(before.billText, "A100-80G") {
		t.Fatalf("issued month before the changes: groups %q, bill page %q; want vision under cv and its price version", before.listGroups, before.billText)
	}

	if err := st.SetProjectTags(ctx, "tester", vision.ID, []string{"nlp-group", "paper"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if err := st.SetProjectTags(ctx, "tester", nlp.ID, []string{"cv"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []models.Price{
		{Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 9900, OverflowRateFen: 9950},
		{Spec: webtest.A100Spec, FromMonth: webtest.BillMonth, RateFen: 9000, OverflowRateFen: 9500},
		{ProjectID: vision.ID, Spec: webtest.A100Spec, FromMonth: webtest.BillMonth, RateFen: 777, OverflowRateFen: 888},
	} {
		if err := st.SetPrice(ctx, p, webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetBillingSettings(ctx, "tester", models.BillingSettings{TimeZone: models.DefaultBillingTimeZone,
		IdleUtilPct: 30, ActiveUtilPct: 70}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	// Kashi has no rename; a project renamed in the database shows its issued bills under
	// the name they were issued with, at its new name's address.
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE projects SET name = 'vision-2' WHERE id = ?`, vision.ID); err != nil {
		t.Fatal(err)
	}

	after := readIssued(t, w, "vision-2")
	for _, c := range []struct {
		what          string
		before, after string
	}{
		{"bills page's groups", before.listGroups, after.listGroups},
		{"bills page's table", before.listText, after.listText},
		{"bill page", before.billText, after.billText},
	} {
		if c.before != c.after {
			t.Errorf("%s changed after the month was issued:\nissued: %s\nnow:    %s", c.what, c.before, c.after)
		}
	}
	for _, c := range []struct {
		what          string
		before, after []byte
	}{
		{"bill JSON", before.json, after.json}, {"bill CSV", before.csv, after.csv}, {"bill XLSX", before.xlsx, after.xlsx},
		{"month JSON", before.monthJSON, after.monthJSON}, {"month CSV", before.monthCSV, after.monthCSV},
		{"month XLSX", before.monthXLSX, after.monthXLSX},
	} {
		if !bytes.Equal(c.before, c.after) {
			t.Errorf("%s is not the same bytes after the month was issued", c.what)
		}
	}
}

// TestFormat1BillPage: a bill frozen before FrozenFormat 2 (its body without price
// versions or adjustment records) still shows on its page the adjustments its body names,
// read from the store where they never change, and no price versions, which its body does
// not carry and today's price list would not tell.
func TestFormat1BillPage(t *testing.T) {
	ctx := context.Background()
	w := webtest.NewBillWorld(t)
	st := w.Store
	vision, _ := st.ProjectByName(ctx, "vision")
	if _, err := st.AddAdjustment(ctx, models.Adjustment{ProjectID: vision.ID, Month: webtest.BillMonth, AmountFen: -700,
		Reason: "outage credit", CreatedBy: "finance"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	b, err := billing.ProjectBill(ctx, st, vision.ID, webtest.BillMonth, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	b.Adjustments, b.PriceVersions = nil, nil
	ib, err := billing.Freeze(b, "finance")
	if err != nil {
		t.Fatal(err)
	}
	ib.Body = strings.Replace(ib.Body, `{"format":2,`, `{`, 1)
	sum := sha256.Sum256([]byte(ib.Body))
	ib.SHA256 = hex.EncodeToString(sum[:])
	if _, err := st.IssueBill(ctx, ib, webtest.T0); err != nil {
		t.Fatal(err)
	}
	r := w.As("finance", "/bills/vision/"+webtest.BillMonth)
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(r.Body))
	if err != nil || r.Code != http.StatusOK {
		t.Fatalf("bill page = %d, %v", r.Code, err)
	}
	if d.Find(`[data-testid=issued]`).Length() != 1 {
		t.Fatal("the format-1 bill is not shown as issued")
	}
	adj := d.Find(`[data-testid=adjustment]`)
	if adj.Length() != 1 || !strings.Contains(adj.Text(), "outage credit") || !strings.Contains(adj.Text(), "finance") {
		t.Errorf("adjustments = %q, want the one the body names, with who made it", adj.Text())
	}
	if n := d.Find(`[data-testid=price-versions]`).Length(); n != 0 {
		t.Errorf("price versions shown for a format-1 bill: %q", d.Find(`[data-testid=price-versions]`).Text())
	}
}
