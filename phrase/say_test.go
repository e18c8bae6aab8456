package phrase

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSayCodes: every phrase code the server makes (a literal phrase.New("code" in its Go
// sources) has a catalog entry, and every entry is made somewhere.
func TestSayCodes(t *testing.T) {
	re := regexp.MustCompile(`phrase\.New\("([^"]+)"`)
	made := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			made[m[1]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(made) < 10 {
		t.Fatalf("found %d phrase codes; is the test running in phrase/?", len(made))
	}
	for code, path := range made {
		if _, ok := catalogEN[SayKeyPrefix+code]; !ok {
			t.Errorf("phrase code %q made in %s has no catalog entry %q", code, path, SayKeyPrefix+code)
		}
	}
	for k := range catalogEN {
		if code, ok := strings.CutPrefix(k, SayKeyPrefix); ok && code != "sep" && made[code] == "" {
			t.Errorf("catalog key %q names no phrase code the server makes", k)
		}
	}
}

func TestSay(t *testing.T) {
	l := Of(New("demand_waited", N(1200), Dur(49*time.Minute), Dur(2*time.Minute)),
		New("size_at_max", N(6), N(6)), New("not-a-code", Pct(86)))
	tests := map[string]struct {
		l    Locale
		in   string
		want string
	}{
		"en":            {en, l.Encode(), "1,200 GPUs of ready demand waited 49m > 2m; size 6 = max 6; not-a-code(86%)"},
		"zh":            {zh, l.Encode(), "1,200 张 GPU 的就绪需求已等待 49分钟 > 2分钟；规模 6 = 最大 6；not-a-code(86%)"},
		"older english": {zh, "size 6 = max 6", "size 6 = max 6"},
		"empty":         {zh, "", ""},
	}
	for name, tc := range tests {
		if got := tc.l.SayText(tc.in); got != tc.want {
			t.Errorf("%s: SayText(%q) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}
