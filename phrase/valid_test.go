package phrase

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	if got, want := zh.Invalid("gpus", "must be between %d and %d, got %d", args, msg), "卡数：应在 1 到 72 之间，收到 100"; got != want {
		t.Errorf("zh Invalid = %q, want %q", got, want)
	}
	if got, want := en.Invalid("gpus", "must be between %d and %d, got %d", args, msg), "GPUs: "+msg; got != want {
		t.Errorf("en Invalid = %q, want %q", got, want)
	}
	if got, want := zh.Invalid("min_nodes", "", nil, "odd"), "最少节点数：odd"; got != want {
		t.Errorf("zh Invalid without a format = %q, want %q", got, want)
	}
}

// TestFieldLabelsNameFields: every label a refused form's message names a field by
// ("field.<name>") is of a field the store or the handlers name, as a string of their code.
func TestFieldLabelsNameFields(t *testing.T) {
	var code strings.Builder
	for _, glob := range []string{"../models/*.go", "../handlers/*.go", "../handlers/*/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			code.Write(b)
		}
	}
	n := 0
	for k := range catalogEN {
		name, ok := strings.CutPrefix(k, FieldKeyPrefix)
		if !ok {
			continue
		}
		n++
		if !strings.Contains(code.String(), strconv.Quote(name)) {
			t.Errorf("%q labels %q, which no store or handler code names", k, name)
		}
	}
	if n < 40 {
		t.Errorf("found %d field labels; is the test running in phrase/?", n)
	}
}

// TestInvalidNamesLabels: a refused form's message names the field by the label the page
// shows, never by its wire name.
func TestInvalidNamesLabels(t *testing.T) {
	for _, tc := range []struct {
		l           Locale
		field, want string
	}{{zh, "amount_fen", "金额"}, {zh, "rate_fen", "每卡时价格"}, {zh, "package_cards", "卡数"}, {en, "amount_fen", "Amount"},
		{en, "size_classes[2].price_fen", "Size classes"}, {zh, "command[0]", "命令"}, {en, "no_such_field", "no_such_field"}} {
		got := tc.l.Invalid(tc.field, "must not be zero", nil, "must not be zero")
		if !strings.HasPrefix(got, tc.want+tc.l.T("valid.sep")) {
			t.Errorf("%v.Invalid(%q) = %q, want it to begin with %q", tc.l, tc.field, got, tc.want)
		}
	}
}
