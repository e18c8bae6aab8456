package billing

import (
	"bytes"
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"
)

// SheetReport is the weekly report workbook's one sheet.
const SheetReport = "Report"

// WriteReportXLSX writes the report as a workbook of one sheet with the CSV's columns and
// rows (reportRows), hours and money as numbers with their formats, so a spreadsheet sums
// them as it finds them; its author is Kashi and its created time the report's AsOf. The
// bytes depend on the report only.
func WriteReportXLSX(w io.Writer, r Report) error {
	f := excelize.NewFile()
	defer f.Close()
	st, err := newXLSXStyles(f)
	if err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	if err := setWorkbookProps(f, r.AsOf); err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	if err := f.SetSheetName("Sheet1", SheetReport); err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	header := make([]any, len(ReportCSVHeader))
	for i, h := range ReportCSVHeader {
		header[i] = h
	}
	err = writeStreamed(f, SheetReport, SheetReport, styled(st.header, header...), func(add func([]any)) {
		reportRows(r, func(fields ...any) {
			row := make([]any, len(fields))
			for i, v := range fields {
				switch x := v.(type) {
				case reportHours:
					row[i] = st.hoursCell(int64(x))
				case reportFen:
					row[i] = st.moneyCell(int64(x))
				default:
					row[i] = v
				}
			}
			add(row)
		})
	})
	if err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	if err := sortZip(w, buf.Bytes()); err != nil {
		return fmt.Errorf("billing: write report xlsx: %w", err)
	}
	return nil
}
