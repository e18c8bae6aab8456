package billing

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
)

// TestXLSXLayout checks what makes the workbook easy to use: each sheet's header row frozen,
// each sheet one table with an autofilter, columns as wide as their longest cell (within
// bounds), money in a currency format and the month as a date.
func TestXLSXLayout(t *testing.T) {
	b := goldenBill(t)
	b.Project = strings.Repeat("p", 40)
	b.Models = []ModelCost{{ServiceID: 1, Service: "chat", Model: "qwen2.5-7b", NominalS: 3600, AmountFen: 1000}}
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, []Bill{b}, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	headers := map[string][]any{SheetSummary: summaryHeader, SheetLines: linesHeader, SheetIdle: idleHeader, SheetModels: modelsHeader}
	for sheet, header := range headers {
		panes, err := f.GetPanes(sheet)
		if err != nil || !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
			t.Errorf("%s panes = %+v, %v; want the header row frozen", sheet, panes, err)
		}
		tables, err := f.GetTables(sheet)
		if err != nil || len(tables) != 1 || !strings.HasPrefix(tables[0].Range, "A1:") {
			t.Errorf("%s tables = %+v, %v; want one table from A1", sheet, tables, err)
		}
		if w, _ := f.GetColWidth(sheet, "A"); w != 42 {
			t.Errorf("%s column A width = %g, want 42 (a 40-character project)", sheet, w)
		}
		last, _ := excelize.ColumnNumberToName(len(header))
		if w, _ := f.GetColWidth(sheet, last); w < float64(len([]rune(header[len(header)-1].(string)))) {
			t.Errorf("%s column %s width = %g, narrower than its header %q", sheet, last, w, header[len(header)-1])
		}
	}
	got := map[string]string{}
	for _, ref := range []string{"Summary!B2", "Summary!I2", "Lines!B2", "Lines!V2", "Idle!B2", "Models!B2", "Models!I2"} {
		sheet, cell, _ := strings.Cut(ref, "!")
		v, err := f.GetCellValue(sheet, cell)
		if err != nil {
			t.Fatal(err)
		}
		got[ref] = v
	}
	want := map[string]string{"Summary!B2": "2026-03", "Lines!B2": "2026-03", "Idle!B2": "2026-03", "Models!B2": "2026-03"}
	for _, ref := range []string{"Summary!I2", "Lines!V2", "Models!I2"} {
		if !strings.HasPrefix(got[ref], "¥") {
			t.Errorf("%s = %q, want money shown with ¥", ref, got[ref])
		}
		delete(got, ref)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("formatted cells (-want +got):\n%s", diff)
	}
}
