package billing

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
	"time"
)

// The same bills download as the same bytes, every time: finance compares files, and the
// CLI's download must equal the API's. The second bill has services, for the Models sheet.
func TestXLSXIsDeterministic(t *testing.T) {
	bills := []Bill{goldenBill(t), billOf(t, modelFixture(t).compute(t), "vision")}
	var one, two bytes.Buffer
	if err := WriteXLSX(&one, bills); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // a second apart: no clock in the file
	if err := WriteXLSX(&two, bills); err != nil {
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
