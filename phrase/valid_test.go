package phrase

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidZH: every validation message the store (fieldErr) and the handlers
// (models.Invalid) make has its Chinese, with the same format verbs, and every Chinese entry
// is made somewhere.
func TestValidZH(t *testing.T) {
	call := regexp.MustCompile(`(?:fieldErr|models\.Invalid|\bInvalid)\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?,\s*("(?:[^"\\]|\\.)*")`)
	files, _ := filepath.Glob("../models/*.go")
	more, _ := filepath.Glob("../handlers/*.go")
	areas, _ := filepath.Glob("../handlers/*/*.go")
	made := map[string]string{}
	for _, f := range append(append(files, more...), areas...) {
		if filepath.Ext(f) != ".go" || regexp.MustCompile(`_test\.go$`).MatchString(f) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			format, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatalf("%s: %s: %v", f, m[1], err)
			}
			made[format] = f
		}
	}
	if len(made) < 50 {
		t.Fatalf("found %d validation messages; is the test running in phrase/?", len(made))
	}
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	for format, f := range made {
		z, ok := validZH[format]
		if !ok {
			t.Errorf("%s makes %q, which validZH lacks", f, format)
			continue
		}
		if diff := cmp.Diff(verb.FindAllString(format, -1), verb.FindAllString(z, -1)); diff != "" {
			t.Errorf("%q: format verbs differ (-en +zh):\n%s", format, diff)
		}
	}
	for format := range validZH {
		if made[format] == "" {
			t.Errorf("validZH has %q, which nothing makes", format)
		}
	}
}

func TestInvalid(t *testing.T) {
	args := []any{1, 72, 100}
	msg := "must be between 1 and 72, got 100"
	if got, want := zh.Invalid("gpus", "must be between %d and %d, got %d", args, msg), "gpus：应在 1 到 72 之间，收到 100"; got != want {
		t.Errorf("zh Invalid = %q, want %q", got, want)
	}
	if got, want := en.Invalid("gpus", "must be between %d and %d, got %d", args, msg), "gpus: "+msg; got != want {
		t.Errorf("en Invalid = %q, want %q", got, want)
	}
	if got, want := zh.Invalid("min_nodes", "", nil, "odd"), "最少节点数：odd"; got != want {
		t.Errorf("zh Invalid without a format = %q, want %q", got, want)
	}
}
