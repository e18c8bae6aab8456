package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mayImport is the layout's rule (README, Architecture): the Kashi packages each package may
// import. A package missing here fails the test until its line is written.
var mayImport = map[string][]string{
	"api":                    nil,
	"loop":                   nil,
	"control":                {"archive", "datacheck", "fleet", "kube", "loop", "models", "notice", "notify", "phrase", "scaler", "schedule", "scheduler"},
	"static":                 nil,
	"notify":                 nil,
	"fleet":                  nil,
	"models":                 {"serving"},
	"models/modelstest":      {"models"},
	"phrase":                 nil,
	"sso":                    nil,
	"sso/ssotest":            nil,
	"views":                  {"api", "phrase", "static"},
	"scheduler":              {"models"},
	"schedule":               {"models"},
	"scaler":                 {"models", "fleet", "phrase", "scheduler"},
	"notice":                 {"billing", "models", "notify", "phrase", "pilot"},
	"datacheck":              {"models"},
	"rightsize":              {"models"},
	"serving":                nil,
	"replay":                 {"billing", "models", "scaler", "scheduler"},
	"loadgen":                {"api"},
	"cli":                    {"api"},
	"billing":                {"models", "rightsize"},
	"archive":                {"billing", "models"},
	"archive/s3test":         nil,
	"metrics":                {"api", "billing", "models", "scheduler"},
	"fleet/exec":             {"fleet"},
	"fleet/sim":              {"fleet"},
	"kube":                   {"agent", "api", "models"},
	"kube/kubetest":          nil,
	"fleet/ctyun":            {"fleet"},
	"fleet/ctyun/ctyunstore": {"fleet", "fleet/ctyun", "models"},
	"fleet/fleettest":        {"fleet"},
	"agent":                  {"api", "serving"},
	"agent/simgpu":           {"agent", "api"},
	"handlers":               {"api", "models", "notify", "phrase", "pilot", "rightsize", "scaler", "scheduler", "sso", "views"},
	"handlers/agent":         {"api", "handlers", "models", "serving"},
	"handlers/bills":         {"api", "billing", "handlers", "models", "pilot", "views", "views/bills"},
	"handlers/board":         {"api", "handlers", "models", "views", "views/board"},
	"handlers/people":        {"api", "handlers", "models", "phrase", "sso", "views", "views/people"},
	"handlers/pools":         {"api", "billing", "handlers", "models", "notify", "phrase", "pilot", "replay", "scaler", "views", "views/pools"},
	"handlers/projects":      {"api", "billing", "handlers", "models", "phrase", "pilot", "scheduler", "views", "views/projects"},
	"handlers/services":      {"api", "handlers", "models", "serving", "views/services"},
	"handlers/tasks":         {"api", "billing", "handlers", "models", "phrase", "rightsize", "scaler", "schedule", "scheduler", "views", "views/tasks"},
	"web":                    {"api", "handlers", "handlers/agent", "handlers/bills", "handlers/board", "handlers/people", "handlers/pools", "handlers/projects", "handlers/services", "handlers/tasks", "phrase", "static", "views"},
	"views/bills":            {"phrase", "views"},
	"views/board":            {"api", "phrase", "views"},
	"views/people":           {"phrase", "views"},
	"views/pools":            {"phrase", "views"},
	"views/projects":         {"phrase", "views"},
	"views/services":         {"phrase", "views"},
	"views/tasks":            {"api", "phrase", "views"},
	"views/viewstest":        {"phrase"},
	"web/webtest":            {"api", "billing", "fleet", "fleet/sim", "handlers", "models", "models/modelstest", "phrase", "scaler", "scheduler", "serving", "web"},
	"demo":                   {"agent", "agent/simgpu", "billing", "fleet", "fleet/sim", "models", "replay"},
	"proof":                  nil,
	"pilot":                  {"billing", "models", "phrase", "replay", "scaler"},
}

// TestImportRules reads every package's imports and checks them against mayImport, so that a
// forbidden edge (views → models, scheduler → notify, models → api) fails here rather than in
// a review. Tests may import more (fixtures, fakes).
func TestImportRules(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if path == "." {
			return nil
		}
		imports, isPkg := kashiImports(t, path)
		if !isPkg {
			return nil
		}
		allowed, known := mayImport[filepath.ToSlash(path)]
		if !known {
			t.Errorf("package %s has no line in mayImport: add one (and to the README's Architecture)", path)
			return nil
		}
		for _, imp := range imports {
			if imp != filepath.ToSlash(path) && !slices.Contains(allowed, imp) {
				t.Errorf("%s imports kashi/%s; it may import only %v", path, imp, allowed)
			}
			if a, b := area(filepath.ToSlash(path)), area(imp); a != "" && b != "" && a != b {
				t.Errorf("%s imports kashi/%s: an area never imports another area", path, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// area is the area a package serves (handlers/<area> and views/<area>), "" for any other
// package: an area's handlers may use its own views, never another area's.
func area(pkg string) string {
	for _, prefix := range []string{"handlers/", "views/"} {
		if a, ok := strings.CutPrefix(pkg, prefix); ok && a != "viewstest" {
			return a
		}
	}
	return ""
}

// kashiImports lists the Kashi packages imported by the non-test Go files in dir (relative to
// the module root), and whether dir holds any.
func kashiImports(t *testing.T, dir string) ([]string, bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
	var out []string
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, is := range af.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if rest, ok := strings.CutPrefix(p, "kashi/"); ok && !slices.Contains(out, rest) {
				out = append(out, rest)
			}
		}
	}
	return out, len(files) > 0
}
