package bills_test

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"io/fs"
	"math/big"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// xlsxCell is one cell as the file's XML holds it: its type attribute ("" or "n" for a
// number, "s" shared string, "str"/"inlineStr" text), its text, and the format code its
// style gives it.
type xlsxCell struct {
	Type, Text, Format string
}

// readXLSX is a second reader of a workbook, apart from excelize: it opens the zip and reads
// the workbook, relationships, shared strings, styles and sheets with encoding/xml. It
// returns each sheet's cells by reference ("A1").
func readXLSX(t *testing.T, data []byte) map[string]map[string]xlsxCell {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("xlsx is not a zip: %v", err)
	}
	part := func(name string, v any) {
		t.Helper()
		f, err := zr.Open(name)
		if err != nil {
			t.Fatalf("xlsx part %s: %v", name, err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		if err := xml.Unmarshal(b, v); err != nil {
			t.Fatalf("xlsx part %s: %v", name, err)
		}
	}
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	part("xl/workbook.xml", &wb)
	var rels struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	part("xl/_rels/workbook.xml.rels", &rels)
	var sst struct {
		SI []struct {
			T string   `xml:"t"`
			R []string `xml:"r>t"`
		} `xml:"si"`
	}
	if _, err := fs.Stat(zr, "xl/sharedStrings.xml"); err == nil { // a workbook of streamed sheets has none
		part("xl/sharedStrings.xml", &sst)
	}
	var styles struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		Xfs []struct {
			NumFmtID int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
	part("xl/styles.xml", &styles)
	// The built-in formats a bill uses (ECMA-376 part 1, 18.8.30).
	codes := map[int]string{0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%", 10: "0.00%", 14: "mm-dd-yy", 22: "m/d/yy h:mm"}
	for _, f := range styles.NumFmts {
		codes[f.ID] = f.Code
	}
	out := map[string]map[string]xlsxCell{}
	for _, s := range wb.Sheets {
		target := ""
		for _, r := range rels.Rel {
			if r.ID == s.RID {
				target = path.Join("xl", r.Target)
			}
		}
		var sheet struct {
			Cells []struct {
				Ref    string `xml:"r,attr"`
				Type   string `xml:"t,attr"`
				Style  int    `xml:"s,attr"`
				V      string `xml:"v"`
				Inline string `xml:"is>t"`
			} `xml:"sheetData>row>c"`
		}
		part(target, &sheet)
		cells := map[string]xlsxCell{}
		for _, c := range sheet.Cells {
			cell := xlsxCell{Type: c.Type, Text: c.V, Format: "General"}
			if c.Style < len(styles.Xfs) {
				cell.Format = codes[styles.Xfs[c.Style].NumFmtID]
			}
			switch c.Type {
			case "s":
				i, _ := strconv.Atoi(c.V)
				cell.Text = sst.SI[i].T
				for _, r := range sst.SI[i].R {
					cell.Text += r
				}
			case "inlineStr":
				cell.Text = c.Inline
			}
			cells[c.Ref] = cell
		}
		out[s.Name] = cells
	}
	return out
}

// TestBillXLSXReadBack reads a bill's XLSX with a second, independent reader (the file's
// XML) and checks that every amount and hour count is a number cell, exactly the bill's
// value, with a number format Excel shows as money, hours or a share.
func TestBillXLSXReadBack(t *testing.T) {
	w := webtest.NewBillWorld(t)
	b := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth))
	r := w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"?format=xlsx")
	if r.Code != http.StatusOK {
		t.Fatalf("GET xlsx = %d %s", r.Code, r.Body)
	}
	book := readXLSX(t, r.Body)
	num := func(v string) *big.Rat {
		x, ok := new(big.Rat).SetString(v)
		if !ok {
			t.Fatalf("cell value %q is not a number", v)
		}
		return x
	}
	fen := func(f int64) *big.Rat { return big.NewRat(f, 100) }
	hours := func(s int64) *big.Rat { return big.NewRat(s, 3600) }
	numberCell := regexp.MustCompile(`^n?$`)
	const money = "[$¥-804]#,##0.00" // yuan, as Excel shows CNY
	check := func(sheet, ref, format string, want *big.Rat) {
		t.Helper()
		c, ok := book[sheet][ref]
		switch {
		case !ok:
			t.Errorf("%s!%s is missing", sheet, ref)
		case !numberCell.MatchString(c.Type):
			t.Errorf("%s!%s is of type %q (%q), want a number", sheet, ref, c.Type, c.Text)
		case c.Format != format:
			t.Errorf("%s!%s has format %q, want %q", sheet, ref, c.Format, format)
		case num(c.Text).Cmp(want) != 0:
			// Hours are stored as a binary fraction: within a millionth is exact enough.
			if d := new(big.Rat).Sub(num(c.Text), want); d.Abs(d).Cmp(big.NewRat(1, 1_000_000)) > 0 {
				t.Errorf("%s!%s = %s, want %s", sheet, ref, c.Text, want.FloatString(6))
			}
		}
	}
	for i, ln := range b.Lines {
		row := strconv.Itoa(i + 2)
		if got := book["Lines"]["D"+row].Text; got != ln.Task {
			t.Errorf("Lines!D%s = %q, want %q", row, got, ln.Task)
		}
		check("Lines", "C"+row, "General", big.NewRat(ln.TaskID, 1))
		if got := book["Lines"]["I"+row].Text; got != ln.Region {
			t.Errorf("Lines!I%s = %q, want the region %q", row, got, ln.Region)
		}
		check("Lines", "K"+row, "#,##0.000", hours(ln.NominalS))
		check("Lines", "L"+row, "#,##0.000", hours(ln.EffectiveS))
		check("Lines", "Q"+row, "#,##0.000", hours(ln.Rerun))
		check("Lines", "R"+row, "#,##0.000", hours(ln.Trial))
		check("Lines", "V"+row, money, fen(ln.RateFen))
		check("Lines", "W"+row, money, fen(ln.AmountFen))
	}
	total := strconv.Itoa(len(b.Items) + 2)
	check("Summary", "I"+total, money, fen(b.TotalFen))
	check("Summary", "E"+total, "#,##0.000", hours(b.NominalS))
	check("Idle", "J2", "0.00%", big.NewRat(b.Idle[0].IdleS, b.Idle[0].NominalS))
	headers := []string{book["Summary"]["A1"].Text, book["Lines"]["A1"].Text, book["Idle"]["A1"].Text}
	if d := cmp.Diff([]string{"项目 Project", "项目 Project", "项目 Project"}, headers); d != "" {
		t.Errorf("first headers (-want +got)\n%s", d)
	}
}
