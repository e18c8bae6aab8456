package views

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"kashi/static"
)

// TestStaticPathsExist checks that every static.Path("…") in the views names an embedded
// file; static.Path panics on any other name.
func TestStaticPathsExist(t *testing.T) {
	re := regexp.MustCompile(`static\.Path\("([^"]+)"\)`)
	files, err := filepath.Glob("*.templ")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			found++
			if !slices.Contains(static.Names(), m[1]) {
				t.Errorf("%s: static.Path(%q) names no embedded file; have %v", f, m[1], static.Names())
			}
		}
	}
	if found == 0 {
		t.Error("found no static.Path calls in the templ files")
	}
}
