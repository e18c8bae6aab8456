package billing

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/xuri/excelize/v2"
)

// readCSV writes bills as CSV and reads the rows back, header first, without the byte-order
// mark.
func readCSV(t *testing.T, bills []Bill) [][]string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, bills); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(buf.Bytes(), []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// readSheet writes bills as a workbook and reads one sheet's rows back as a spreadsheet
// shows them, header first.
func readSheet(t *testing.T, bills []Bill, sheet string) [][]string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, bills, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
