package billing

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// frozenHeader keeps each sheet's header row in view.
var frozenHeader = &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}

// Column widths in characters: at least minColWidth, at most maxColWidth.
const (
	minColWidth = 8
	maxColWidth = 60
)

// colWidths is each column's width fitted to the rows seen.
type colWidths []float64

// fit widens the columns to the cells of row.
func (w *colWidths) fit(row []any) {
	for len(*w) < len(row) {
		*w = append(*w, minColWidth)
	}
	for i, c := range row {
		(*w)[i] = min(maxColWidth, max((*w)[i], cellWidth(c)+2))
	}
}

// cellWidth estimates a cell's displayed width: wide (CJK) runes count two, numbers as
// formatted with separators and the currency sign, dates as yyyy-mm.
func cellWidth(c any) float64 {
	if cell, ok := c.(excelize.Cell); ok {
		c = cell.Value
	}
	switch v := c.(type) {
	case nil:
		return 0
	case string:
		n := 0
		for _, r := range v {
			if utf8.RuneLen(r) > 2 {
				n += 2
			} else {
				n++
			}
		}
		return float64(n)
	case time.Time:
		return 7
	case float64:
		s := strconv.FormatFloat(v, 'f', 3, 64)
		return float64(len(s) + len(s)/3 + 1)
	default:
		s := fmt.Sprint(v)
		return float64(len(s) + len(s)/3)
	}
}

// monthCell is a bill's month as a date (its first day) in the month format, or the text
// as it is when it is not a month.
func (st xlsxStyles) monthCell(month string) any {
	m, err := ParseMonth(month)
	if err != nil {
		return month
	}
	return excelize.Cell{StyleID: st.month, Value: time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, time.UTC)}
}

// hoursCell is seconds as hours in the hours format.
func (st xlsxStyles) hoursCell(sec int64) excelize.Cell {
	return excelize.Cell{StyleID: st.hours, Value: Hours(sec)}
}

// moneyCell is fen as yuan in the money format.
func (st xlsxStyles) moneyCell(fen int64) excelize.Cell {
	return excelize.Cell{StyleID: st.money, Value: Yuan(fen)}
}

// writeStreamed streams a sheet: header, then the rows each passes to add, with columns
// fitted to the rows (a first pass), the header frozen and the whole range a table with an
// autofilter named table.
func writeStreamed(f *excelize.File, sheet, table string, header []any, each func(add func([]any))) error {
	widths := colWidths{}
	widths.fit(header)
	each(widths.fit)
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	if err := sw.SetPanes(frozenHeader); err != nil {
		return err
	}
	for i, w := range widths {
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	rows := &streamRows{sw: sw}
	rows.add(header)
	each(rows.add)
	if rows.err != nil {
		return rows.err
	}
	last, err := excelize.CoordinatesToCellName(len(header), max(rows.n, 2))
	if err != nil {
		return err
	}
	if err := sw.AddTable(&excelize.Table{Range: "A1:" + last, Name: table}); err != nil {
		return err
	}
	return sw.Flush()
}
