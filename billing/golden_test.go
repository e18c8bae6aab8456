package billing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"kashi/models"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/billing")

const goldenDir = "../testdata/billing"

// goldenBill is one project's issued March bill: a reserved package with unused hours, a
// pay-as-you-go spec, overflow, an interrupted task, an idle task, an adjustment, tags and
// names that need care in CSV (Chinese, a comma and quotes, a formula); the H800 cards' node
// is in a region, the A100 cards' in none.
func goldenBill(t testing.TB) Bill {
	t.Helper()
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").
		price(0, a100, 1500, 2500).price(0, h800, 3000, 4000).
		plan(models.BillingPlan{ProjectID: 1, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 3, PackageFeeFen: 300000}).
		task(1, 1, "预训练-7B", models.TaskRunning, 0, -1).hold(1, 1, 1, a100, -48, -1, false).hold(1, 1, 2, a100, -48, -1, false).
		busy(1, -1, 300, 30, 20, 5).
		task(2, 1, `eval, "quick"`, models.TaskSucceeded, 120, 14.5).hold(2, 1, 9, h800, 10, 14.5, false).busy(9, 11, 14.5, 30, 10, 10).
		task(3, 1, "=SUM(A1)", models.TaskFailed, 0, 21).hold(3, 1, 10, h800, 20, 21, false).
		task(4, 1, "burst", models.TaskSucceeded, 0, 103).hold(4, 1, 3, a100, 100, 103, true).
		task(5, 1, "idle-job", models.TaskSucceeded, 0, 260).hold(5, 1, 4, a100, 200, 260, false).busy(4, 200, 260, 30, 0, 30)
	f.in.Projects[0].Tags = "视觉组,cc-7"
	f.in.Regions = map[int64]string{2: "华北-2"}
	f.tasks[1].EstimatedS = 4 * 3600
	f.in.Adjustments = []models.Adjustment{{ID: 3, ProjectID: 1, Month: "2026-03", AmountFen: -1234, Reason: "2月 计费错误 correction", CorrectsMonth: "2026-02",
		CreatedBy: "finance-li", CreatedAt: time.Date(2026, 3, 20, 3, 0, 0, 0, time.UTC)}}
	f.in.AsOf = time.Date(2026, 4, 1, 2, 0, 0, 0, time.UTC)
	b := billOf(t, f.compute(t), "alpha")
	ib, err := Freeze(b, "finance-li")
	if err != nil {
		t.Fatal(err)
	}
	ib.ID, ib.IssuedAt = 1, time.Date(2026, 4, 1, 2, 0, 0, 0, time.UTC)
	frozen, err := Frozen(ib)
	if err != nil {
		t.Fatal(err)
	}
	return frozen
}

func TestGoldenCSV(t *testing.T) {
	b := goldenBill(t)
	var got bytes.Buffer
	if err := WriteCSV(&got, []Bill{b}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(goldenDir, "alpha-2026-03.csv")
	if *update {
		writeGolden(t, path, got.Bytes())
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (regenerate with -update): %v", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("CSV differs from %s (regenerate with -update if intended):\n%s", path, got.String())
	}
	if !bytes.HasPrefix(got.Bytes(), []byte("\xEF\xBB\xBF")) {
		t.Errorf("CSV does not start with a UTF-8 byte-order mark")
	}
}

// TestGoldenJSON pins the API's JSON shape of a bill.
func TestGoldenJSON(t *testing.T) {
	got, err := json.MarshalIndent(goldenBill(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join(goldenDir, "alpha-2026-03.json")
	if *update {
		writeGolden(t, path, got)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (regenerate with -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("JSON differs from %s (regenerate with -update if intended):\n%s", path, got)
	}
}

func TestGoldenXLSX(t *testing.T) {
	b := goldenBill(t)
	var got bytes.Buffer
	if err := WriteXLSX(&got, []Bill{b}, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(goldenDir, "alpha-2026-03.xlsx")
	if *update {
		writeGolden(t, path, got.Bytes())
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (regenerate with -update): %v", err)
	}
	gotCells, wantCells := xlsxCells(t, got.Bytes()), xlsxCells(t, want)
	for _, sheet := range []string{SheetSummary, SheetLines, SheetIdle, SheetModels} {
		g, w := gotCells[sheet], wantCells[sheet]
		if len(w) == 0 {
			t.Errorf("golden has no sheet %s", sheet)
		}
		for ref, wc := range w {
			if gc := g[ref]; gc != wc {
				t.Errorf("%s!%s = %q, want %q", sheet, ref, gc, wc)
			}
		}
		for ref, gc := range g {
			if _, ok := w[ref]; !ok {
				t.Errorf("%s!%s = %q, not in golden", sheet, ref, gc)
			}
		}
	}
}

// xlsxCells reads every non-empty cell as "raw value | number format" by sheet and cell.
func xlsxCells(t *testing.T, data []byte) map[string]map[string]string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatalf("rows of %s: %v", sheet, err)
		}
		cells := map[string]string{}
		for r, row := range rows {
			for c, v := range row {
				if v == "" {
					continue
				}
				ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
				id, err := f.GetCellStyle(sheet, ref)
				if err != nil {
					t.Fatal(err)
				}
				st, err := f.GetStyle(id)
				if err != nil {
					t.Fatal(err)
				}
				numFmt := fmt.Sprint(st.NumFmt)
				if st.CustomNumFmt != nil {
					numFmt = *st.CustomNumFmt
				}
				cells[ref] = v + " | " + numFmt
			}
		}
		out[sheet] = cells
	}
	return out
}

func writeGolden(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIssuedBillSameBytes: an issued bill rendered again, from its stored body, gives the
// same CSV and XLSX bytes.
func TestIssuedBillSameBytes(t *testing.T) {
	b := goldenBill(t)
	render := func(b Bill) (string, string) {
		var c, x bytes.Buffer
		if err := WriteCSV(&c, []Bill{b}); err != nil {
			t.Fatal(err)
		}
		if err := WriteXLSX(&x, []Bill{b}, EnglishSheets); err != nil {
			t.Fatal(err)
		}
		return c.String(), x.String()
	}
	c1, x1 := render(b)
	again := goldenBill(t)
	c2, x2 := render(again)
	if c1 != c2 || x1 != x2 {
		t.Errorf("re-rendering an issued bill changed its bytes (csv equal %v, xlsx equal %v)", c1 == c2, x1 == x2)
	}
}

func TestFrozenRejectsTampering(t *testing.T) {
	b := goldenBill(t)
	ib, err := Freeze(b, "x")
	if err != nil {
		t.Fatal(err)
	}
	ib.Body = ib.Body[:len(ib.Body)-1] + " }"
	if _, err := Frozen(ib); err == nil {
		t.Errorf("Frozen(tampered body) = nil error")
	}
}

// v1SHA256 is the checksum of testdata/billing/alpha-2026-03.v1-body.json, goldenBill as
// Kashi froze it before FrozenFormat 2: without a format, price versions or adjustment
// records.
const v1SHA256 = "76809f2bd45efdbce28f6e44175303586c1f832417e9e1d5b8657345125d0141"

// TestFrozenV1Body: a bill issued before FrozenFormat 2 is still verified and read, as format
// 1 without the parts it never carried; its lines, items and tags are the ones it was issued
// with, and it writes as CSV and XLSX. A body changed by a byte, or of a format newer than
// this Kashi's, is refused.
func TestFrozenV1Body(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(goldenDir, "alpha-2026-03.v1-body.json"))
	if err != nil {
		t.Fatal(err)
	}
	ib := models.IssuedBill{ID: 1, ProjectID: 1, Month: "2026-03", Body: string(body), SHA256: v1SHA256, IssuedBy: "finance-li",
		IssuedAt: time.Date(2026, 4, 1, 2, 0, 0, 0, time.UTC)}
	b, err := Frozen(ib)
	if err != nil {
		t.Fatalf("Frozen(v1 body) = %v", err)
	}
	now := goldenBill(t)
	if b.Format != 0 || b.PriceVersions != nil || b.Adjustments != nil || b.Issued == nil || b.Issued.SHA256 != v1SHA256 {
		t.Errorf("v1 bill: format %d, price versions %v, adjustments %v, issued %+v; want format 1's none and its checksum",
			b.Format, b.PriceVersions, b.Adjustments, b.Issued)
	}
	if fmt.Sprint(b.Lines, b.Items, b.Tags, b.AdjustmentIDs, b.TotalFen) != fmt.Sprint(now.Lines, now.Items, now.Tags, now.AdjustmentIDs, now.TotalFen) {
		t.Errorf("v1 bill's lines, items, tags, adjustments or total differ from the bill computed now")
	}
	var csv, xlsx bytes.Buffer
	if err := WriteCSV(&csv, []Bill{b}); err != nil {
		t.Error(err)
	}
	if err := WriteXLSX(&xlsx, []Bill{b}, EnglishSheets); err != nil {
		t.Error(err)
	}
	tampered := ib
	tampered.Body = string(bytes.Replace(body, []byte(`"alpha"`), []byte(`"alphb"`), 1))
	if _, err := Frozen(tampered); err == nil {
		t.Error("Frozen(a body changed by a byte) = nil error, want the checksum refused")
	}
	next, err := Freeze(Bill{Format: FrozenFormat + 1, Project: "alpha"}, "x")
	if err != nil {
		t.Fatal(err)
	}
	next.Body = strings.Replace(next.Body, `"format":2`, fmt.Sprintf(`"format":%d`, FrozenFormat+1), 1)
	sum := sha256.Sum256([]byte(next.Body))
	next.SHA256 = hex.EncodeToString(sum[:])
	if _, err := Frozen(next); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Frozen(format %d) = %v, want it refused as newer", FrozenFormat+1, err)
	}
}
