package views

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	areas, err := filepath.Glob("*/*.templ")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, areas...)
	found := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			found++
			if _, err := fs.Stat(static.FS, m[1]); err != nil {
				t.Errorf("%s: static.Path(%q) names no embedded file: %v", f, m[1], err)
			}
		}
	}
	if found == 0 {
		t.Error("found no static.Path calls in the templ files")
	}
}
