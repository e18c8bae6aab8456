package board

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// Parts compressed apart and joined are one gzip member that reads as their concatenation,
// whatever they hold (empty ones too, and text a part repeats from the one before it, which
// its compression must not refer back to).
func FuzzGzipParts(f *testing.F) {
	f.Add([]byte("<html><body>"), []byte("<div>board</div><div>board</div>"), []byte("</body></html>"))
	f.Add([]byte{}, []byte{}, []byte{})
	f.Add(bytes.Repeat([]byte("abc"), 40000), bytes.Repeat([]byte("abc"), 40000), []byte("abc"))
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		var parts []gzipPart
		for _, data := range [][]byte{a, b, c} {
			p, err := deflatePart(data)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		var out bytes.Buffer
		if err := writeGzip(&out, parts...); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&out)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("reading the joined parts: %v", err)
		}
		if want := bytes.Join([][]byte{a, b, c}, nil); !bytes.Equal(got, want) {
			t.Fatalf("the joined parts read %d bytes, want their %d", len(got), len(want))
		}
		if out.Len() != 0 {
			t.Fatalf("%d bytes after the gzip member", out.Len())
		}
	})
}
