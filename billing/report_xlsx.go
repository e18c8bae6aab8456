package billing

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/xuri/excelize/v2"
)

// SheetReport is the weekly report workbook's one sheet.
const SheetReport = "Report"

// WriteReportXLSX writes the report as a workbook of one sheet with the CSV's columns and
// rows (reportRows), hours and money as numbers with their formats, so a spreadsheet sums
// them as it finds them; its author is Kashi and its created time the report's AsOf. The
// bytes depend on the report only.
func WriteReportXLSX(w io.Writer, r Report) error {
	if err := WriteTableXLSX(w, SheetReport, SheetReport, ReportCSVHeader, r.AsOf, func(add func(...any)) { reportRows(r, add) }); err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	return nil
}

// HoursCell and FenCell are a table's card-seconds and money cells: hours with six decimals
// in a CSV, numbers in the hours and money formats in a workbook (WriteTableXLSX).
type (
	HoursCell int64
	FenCell   int64
)

// WriteTableXLSX writes a workbook of one sheet named sheet as the bills' workbooks are
// written: the header in bold and frozen, the columns fitted, the whole range a table named
// table with an autofilter, each HoursCell and FenCell a number in its format (other values
// as they are, nil an empty cell), its author Kashi and its created time at. each passes
// the rows after the header to add, twice (the first pass fits the columns). The bytes
// depend on the arguments only.
func WriteTableXLSX(w io.Writer, sheet, table string, header []string, at time.Time, each func(add func(...any))) error {
	f := excelize.NewFile()
	defer f.Close()
	st, err := newXLSXStyles(f)
	if err != nil {
		return err
	}
	if err := setWorkbookProps(f, at); err != nil {
		return err
	}
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	head := make([]any, len(header))
	for i, h := range header {
		head[i] = h
	}
	err = writeStreamed(f, sheet, table, styled(st.header, head...), func(add func([]any)) {
		each(func(fields ...any) {
			row := make([]any, len(fields))
			for i, v := range fields {
				switch x := v.(type) {
				case HoursCell:
					row[i] = st.hoursCell(int64(x))
				case FenCell:
					row[i] = st.moneyCell(int64(x))
				default:
					row[i] = v
				}
			}
			add(row)
		})
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return err
	}
	return sortZip(w, buf.Bytes())
}
