package billing

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// The same bills download as the same bytes, every time: finance compares files, and the
// CLI's download must equal the API's. The second bill has services, for the Models sheet.
func TestXLSXIsDeterministic(t *testing.T) {
	bills := []Bill{goldenBill(t), billOf(t, modelFixture(t).compute(t), "vision")}
	var one, two bytes.Buffer
	if err := WriteXLSX(&one, bills, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // a second apart: no clock in the file
	if err := WriteXLSX(&two, bills, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(one.Bytes(), two.Bytes()) {
		return
	}
	entries := func(data []byte) map[string][]byte {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, f := range zr.File {
			r, _ := f.Open()
			out[f.Name], _ = io.ReadAll(r)
			r.Close()
		}
		return out
	}
	a, c := entries(one.Bytes()), entries(two.Bytes())
	for name, body := range a {
		if !bytes.Equal(body, c[name]) {
			t.Errorf("%s differs between two writes of the same bills:\n%s\n---\n%s", name, body, c[name])
		}
	}
	t.Error("two writes of the same bills differ")
}

// A workbook names Kashi as its author and the moment of its figures as its creation (a
// bill's issue time when issued, else its AsOf; a report's AsOf), not excelize's defaults.
func TestWorkbookProperties(t *testing.T) {
	asOf := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	issuedAt := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	props := func(write func(*bytes.Buffer) error) *excelize.DocProperties {
		t.Helper()
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		f, err := excelize.OpenReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.GetDocProps()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	draft := Bill{Project: "alpha", Month: "2026-02", AsOf: asOf}
	issued := draft
	issued.Issued = &Issued{At: issuedAt}
	for name, tc := range map[string]struct {
		write func(*bytes.Buffer) error
		want  time.Time
	}{
		"draft bill":  {func(b *bytes.Buffer) error { return WriteXLSX(b, []Bill{draft}, EnglishSheets) }, asOf},
		"issued bill": {func(b *bytes.Buffer) error { return WriteXLSX(b, []Bill{issued}, EnglishSheets) }, issuedAt},
		"report":      {func(b *bytes.Buffer) error { return WriteReportXLSX(b, Report{AsOf: asOf}) }, asOf},
	} {
		p := props(tc.write)
		if p.Creator != "Kashi" || p.Created != tc.want.Format(time.RFC3339) {
			t.Errorf("%s: creator %q created %q, want Kashi at %s", name, p.Creator, p.Created, tc.want.Format(time.RFC3339))
		}
	}
}
