package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// embedded lists the embedded file names, sorted.
func embedded(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(FS, "*")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestEmbedded(t *testing.T) {
	want := []string{"htmx.LICENSE", "htmx.min.js", "kashi.css", "kashi.js"}
	if diff := cmp.Diff(want, embedded(t)); diff != "" {
		t.Errorf("embedded files mismatch (-want +got):\n%s", diff)
	}
}

func TestPath(t *testing.T) {
	re := regexp.MustCompile(`^/static/([a-zA-Z0-9._-]+)\?v=([0-9a-f]{10})$`)
	for _, name := range embedded(t) {
		p := Path(name)
		m := re.FindStringSubmatch(p)
		if m == nil || m[1] != name {
			t.Errorf("Path(%q) = %q, want /static/%s?v=<10 hex digits>", name, p, name)
			continue
		}
		b, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if want := hex.EncodeToString(sum[:])[:10]; m[2] != want {
			t.Errorf("Path(%q) hash = %s, want %s", name, m[2], want)
		}
	}
}

func TestPathUnknownPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Errorf(`Path("nope.css") did not panic`)
		}
	}()
	Path("nope.css")
}

func TestVendoredHTMX(t *testing.T) {
	js, err := FS.ReadFile("htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `version:"2.`) {
		t.Errorf("htmx.min.js is not htmx 2.x")
	}
	lic, err := FS.ReadFile("htmx.LICENSE")
	if err != nil || len(lic) == 0 {
		t.Errorf("htmx.LICENSE missing: %v", err)
	}
}
