package phrase

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// en and zh are the locales the tests write in.
var (
	en = Locale{Lang: LangEN}
	zh = Locale{Lang: LangZH}
)

// usedKeys returns the catalog keys named by a literal .T("…") call in the templ and Go
// sources of the packages that write the catalogs' text: this one, views, handlers, which
// build some sentences (form errors) from the catalogs too, and notice, which words chat
// messages (generated code and tests left out). A .Count("…") call names its key and the
// key's ".one".
func usedKeys(t *testing.T) map[string][]string {
	t.Helper()
	re := regexp.MustCompile(`\.(T|Count)\("([^"]+)"`)
	used := make(map[string][]string)
	var files []string
	for _, pattern := range []string{"*.go", "../views/*", "../views/*/*", "../handlers/*.go", "../handlers/*/*.go", "../notice/*.go", "../pilot/*.go"} {
		more, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	for _, f := range files {
		if !(strings.HasSuffix(f, ".templ") || strings.HasSuffix(f, ".go")) ||
			strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			used[m[2]] = append(used[m[2]], f)
			if m[1] == "Count" {
				used[m[2]+".one"] = append(used[m[2]+".one"], f)
			}
		}
	}
	if len(used) == 0 {
		t.Fatal("found no .T(\"…\") calls; is the test running in phrase/?")
	}
	return used
}

func TestCatalogsHaveTheSameKeys(t *testing.T) {
	for k := range catalogEN {
		if _, ok := catalogZH[k]; !ok {
			t.Errorf("key %q is in catalog_en.go but not in catalog_zh.go", k)
		}
	}
	for k := range catalogZH {
		if _, ok := catalogEN[k]; !ok {
			t.Errorf("key %q is in catalog_zh.go but not in catalog_en.go", k)
		}
	}
}

func TestCatalogsHaveTheSameVerbs(t *testing.T) {
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	for k, e := range catalogEN {
		z, ok := catalogZH[k]
		if !ok {
			continue
		}
		if diff := cmp.Diff(verb.FindAllString(e, -1), verb.FindAllString(z, -1)); diff != "" {
			t.Errorf("key %q: format verbs differ (-en +zh):\n%s", k, diff)
		}
	}
}

func TestUsedKeysExist(t *testing.T) {
	for k, files := range usedKeys(t) {
		if _, ok := catalogEN[k]; !ok {
			t.Errorf("key %q used in %v is not in the catalogs", k, slices.Compact(files))
		}
	}
}

func TestCatalogKeysAreUsed(t *testing.T) {
	used := usedKeys(t)
	for k := range catalogEN {
		if strings.HasPrefix(k, PoolFieldKeyPrefix) {
			continue // named from the pool settings table: TestPoolFieldKeys, handlers' TestPoolFieldTexts
		}
		if strings.HasPrefix(k, SayKeyPrefix) {
			continue // named by phrase codes: TestSayCodes
		}
		if strings.HasPrefix(k, FieldKeyPrefix) {
			continue // named by the fields of refused input: TestFieldLabelsNameFields
		}
		if strings.HasPrefix(k, AuditFieldKeyPrefix) || strings.HasPrefix(k, AuditActionKeyPrefix) ||
			strings.HasPrefix(k, AuditSubjectKeyPrefix) || strings.HasPrefix(k, AuditValueKeyPrefix) {
			continue // named from the audit log's entries: handlers/people's TestAuditWords and TestAuditPageWords
		}
		if _, ok := used[k]; !ok {
			t.Errorf("catalog key %q is not used by any .T(%q) call", k, k)
		}
	}
}

func TestT(t *testing.T) {
	tests := map[string]struct {
		l    Locale
		key  string
		args []any
		want string
	}{
		"en plain":           {en, "nav.board", nil, "Board"},
		"zh plain":           {zh, "nav.board", nil, "占用看板"},
		"en args":            {en, "error.title", []any{404}, "Error 404"},
		"zh args":            {zh, "error.title", []any{404}, "错误 404"},
		"unknown lang is en": {Locale{Lang: "fr"}, "nav.queue", nil, "Queue"},
		"zero locale is en":  {Locale{}, "nav.queue", nil, "Queue"},
		"missing key":        {zh, "no.such.key", nil, "no.such.key"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.l.T(tc.key, tc.args...); got != tc.want {
				t.Errorf("%v.T(%q, %v) = %q, want %q", tc.l, tc.key, tc.args, got, tc.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		l    Locale
		n    int
		want string
	}{{en, 1, "1 GPU"}, {en, 2, "2 GPUs"}, {en, 0, "0 GPUs"}, {en, 1200, "1,200 GPUs"}, {zh, 1, "1 卡"}, {zh, 3, "3 卡"}} {
		if got := tc.l.Count("ctx.gpus", tc.n); got != tc.want {
			t.Errorf("%v.Count(ctx.gpus, %d) = %q, want %q", tc.l, tc.n, got, tc.want)
		}
	}
	if got := en.Count("reserve.asked", 1, "a", "b"); got != "1 GPU, a – b" {
		t.Errorf("Count with more arguments = %q", got)
	}
}

func TestInt(t *testing.T) {
	tests := map[int]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 1234: "1,234", 123456: "123,456",
		1234567: "1,234,567", -1234: "-1,234", -999: "-999",
	}
	for n, want := range tests {
		for _, l := range []Locale{en, zh} {
			if got := l.Int(n); got != want {
				t.Errorf("%v.Int(%d) = %q, want %q", l, n, got, want)
			}
		}
	}
}

func TestPercent(t *testing.T) {
	tests := map[int]string{0: "0%", 42: "42%", 100: "100%", 250: "250%", -5: "-5%"}
	for p, want := range tests {
		for _, l := range []Locale{en, zh} {
			if got := l.Percent(p); got != want {
				t.Errorf("%v.Percent(%d) = %q, want %q", l, p, got, want)
			}
		}
	}
}

func TestMiB(t *testing.T) {
	tests := map[int64]string{
		0:         "0 MiB",
		512:       "512 MiB",
		1023:      "1,023 MiB",
		1024:      "1 GiB",
		12595:     "12.3 GiB",
		81920:     "80 GiB",
		81559:     "79.6 GiB",
		1048400:   "1,023.8 GiB",
		1048525:   "1 TiB", // 1,023.95 GiB rounds up to the next unit
		1048576:   "1 TiB",
		1572864:   "1.5 TiB",
		335544320: "320 TiB",
	}
	for m, want := range tests {
		for _, l := range []Locale{en, zh} {
			if got := l.MiB(m); got != want {
				t.Errorf("%v.MiB(%d) = %q, want %q", l, m, got, want)
			}
		}
	}
}

func TestMiBOf(t *testing.T) {
	tests := []struct {
		used, total int64
		want        string
	}{
		{12595, 81920, "12.3 / 80 GiB"},
		{512, 81920, "512 MiB / 80 GiB"},
		{0, 0, "0 / 0 MiB"},
		{0, 81920, "0 / 80 GiB"},
		{655360, 1310720, "640 GiB / 1.3 TiB"},
	}
	for _, tc := range tests {
		if got := en.MiBOf(tc.used, tc.total); got != tc.want {
			t.Errorf("MiBOf(%d, %d) = %q, want %q", tc.used, tc.total, got, tc.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := map[time.Duration][2]string{
		-time.Second:                          {"0s", "0秒"},
		0:                                     {"0s", "0秒"},
		45 * time.Second:                      {"45s", "45秒"},
		59*time.Second + 999*time.Millisecond: {"59s", "59秒"},
		3 * time.Minute:                       {"3m", "3分钟"},
		3*time.Minute + 59*time.Second:        {"3m", "3分钟"},
		time.Hour:                             {"1h", "1小时"},
		2*time.Hour + 5*time.Minute:           {"2h 5m", "2小时5分"},
		23*time.Hour + 59*time.Minute:         {"23h 59m", "23小时59分"},
		24 * time.Hour:                        {"1d", "1天"},
		26*time.Hour + 30*time.Minute:         {"1d 2h", "1天2小时"},
		200 * time.Hour:                       {"8d 8h", "8天8小时"},
	}
	for d, want := range tests {
		if got := en.Duration(d); got != want[0] {
			t.Errorf("en.Duration(%v) = %q, want %q", d, got, want[0])
		}
		if got := zh.Duration(d); got != want[1] {
			t.Errorf("zh.Duration(%v) = %q, want %q", d, got, want[1])
		}
	}
}

func TestAgo(t *testing.T) {
	tests := map[time.Duration][2]string{
		-time.Minute:                {"just now", "刚刚"},
		3 * time.Second:             {"just now", "刚刚"},
		45 * time.Second:            {"45s ago", "45秒前"},
		5 * time.Minute:             {"5m ago", "5分钟前"},
		2*time.Hour + 5*time.Minute: {"2h 5m ago", "2小时5分前"},
	}
	for d, want := range tests {
		if got := en.Ago(d); got != want[0] {
			t.Errorf("en.Ago(%v) = %q, want %q", d, got, want[0])
		}
		if got := zh.Ago(d); got != want[1] {
			t.Errorf("zh.Ago(%v) = %q, want %q", d, got, want[1])
		}
	}
}

func TestLanguages(t *testing.T) {
	want := []Language{{"en", "English"}, {"zh-CN", "中文"}}
	if diff := cmp.Diff(want, Languages()); diff != "" {
		t.Errorf("Languages() mismatch (-want +got):\n%s", diff)
	}
}

func TestNegotiate(t *testing.T) {
	tests := map[string]struct {
		cookie, accept string
		want           string
	}{
		"nothing":               {"", "", "en"},
		"cookie en":             {"en", "zh-CN,zh;q=0.9", "en"},
		"cookie zh":             {"zh-CN", "en-US,en;q=0.9", "zh-CN"},
		"cookie case":           {"ZH-cn", "", "zh-CN"},
		"bad cookie falls back": {"fr", "zh-CN,zh;q=0.9", "zh-CN"},
		"garbage cookie":        {"%%%", "", "en"},
		"accept zh":             {"", "zh", "zh-CN"},
		"accept zh-Hans-CN":     {"", "zh-Hans-CN", "zh-CN"},
		"accept en-GB":          {"", "en-GB,en;q=0.8", "en"},
		"accept weighted zh":    {"", "fr;q=0.9,zh-CN;q=0.8,en;q=0.1", "zh-CN"},
		"accept unsupported":    {"", "fr-FR,de;q=0.5", "en"},
		"accept malformed":      {"", ";;;q=x", "en"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Negotiate(tc.cookie, tc.accept); got.Lang != tc.want {
				t.Errorf("Negotiate(%q, %q) = %q, want %q", tc.cookie, tc.accept, got.Lang, tc.want)
			}
		})
	}
}
