package pools_test

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"kashi/web/webtest"
)

// checkReviewXLSX downloads the review's workbook from href in both languages and holds it to
// the bills' conventions and to the CSV's rows (csvRows): one sheet named in the download's
// language, its header frozen, the same rows, card-hours and money as numbers, Kashi its
// author.
func checkReviewXLSX(t *testing.T, s *webtest.Server, href string, csvRows [][]string) {
	t.Helper()
	if !strings.HasPrefix(href, "/pools/a100/review.xlsx?") {
		t.Fatalf("the review links its workbook at %q", href)
	}
	for lang, sheet := range map[string]string{"en": "Pilot review", "zh-CN": "试点复盘"} {
		w := s.Get(href, "Accept-Language", lang)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" ||
			!strings.Contains(w.Header().Get("Content-Disposition"), "kashi-review-a100-2026-02-01-2026-02-28.xlsx") {
			t.Fatalf("GET %s (%s) = %d %v", href, lang, w.Code, w.Header())
		}
		f, err := excelize.OpenReader(bytes.NewReader(w.Body.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.GetSheetList(); len(got) != 1 || got[0] != sheet {
			t.Errorf("%s sheets %q, want [%s]", lang, got, sheet)
		}
		panes, err := f.GetPanes(sheet)
		if err != nil || !panes.Freeze || panes.YSplit != 1 {
			t.Errorf("%s panes %+v %v, want the header frozen", lang, panes, err)
		}
		props, err := f.GetDocProps()
		if err != nil || props.Creator != "Kashi" {
			t.Errorf("%s creator %+v %v", lang, props, err)
		}
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil || len(rows) != len(csvRows) {
			t.Fatalf("%s: %d rows %v, the CSV's %d", lang, len(rows), err, len(csvRows))
		}
		numbers := 0
		for i, r := range csvRows {
			if r[0] != "figure" {
				continue
			}
			typ, err := f.GetCellType(sheet, "E"+strconv.Itoa(i+1))
			if err != nil {
				t.Fatal(err)
			}
			want, err1 := strconv.ParseFloat(r[4], 64)
			got, err2 := strconv.ParseFloat(rows[i][4], 64)
			if rows[i][1] != r[1] || typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString ||
				err1 != nil || err2 != nil || math.Abs(got-want) > 1e-6*max(1, math.Abs(want)) {
				t.Errorf("%s row %d: %q %q (%v), the CSV %q %q", lang, i+1, rows[i][1], rows[i][4], typ, r[1], r[4])
				continue
			}
			numbers++
		}
		if numbers == 0 {
			t.Errorf("%s: no figure is a number", lang)
		}
	}
}
