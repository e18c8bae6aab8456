package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestWireTypesOnlyInAPI holds the house rule "wire types only in api/": no struct with JSON
// tags (a named type, or an anonymous body decoded in place) in the handlers' and web's
// non-test files; what the API reads and writes is declared in api/, where the OpenAPI
// document's check (api.TestResponseTypesDocumented) sees it. web/webtest's helpers are the
// tests' own.
func TestWireTypesOnlyInAPI(t *testing.T) {
	for _, root := range []string{"handlers", "web"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (filepath.ToSlash(path) == "web/webtest" || d.Name() == "testdata"):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, at := range jsonStructs(t, path, src) {
				t.Errorf("%s declares a struct with JSON tags: move it to api/ with a schema in api/openapi.json", at)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestJSONStructsFinds: the walk's finder sees a named type and an anonymous body with JSON
// tags, and not a struct without them.
func TestJSONStructsFinds(t *testing.T) {
	src := "package p\n" +
		"type named struct {\n\tA int `json:\"a\"`\n}\n" +
		"type plain struct {\n\tB int `db:\"b\"`\n}\n" +
		"func f() {\n\tvar b struct {\n\t\tC string `json:\"c,omitempty\"`\n\t}\n\t_ = b\n}\n"
	got := jsonStructs(t, "p.go", []byte(src))
	want := []string{"p.go:2:12", "p.go:9:8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jsonStructs = %v, want %v", got, want)
	}
}

// jsonStructs is where in the Go source src (named file) a struct type has a field with a
// JSON tag.
func jsonStructs(t *testing.T, file string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok {
			return true
		}
		for _, field := range st.Fields.List {
			if field.Tag == nil {
				continue
			}
			tag, err := strconv.Unquote(field.Tag.Value)
			if _, has := reflect.StructTag(tag).Lookup("json"); err == nil && has {
				out = append(out, fset.Position(st.Pos()).String())
				break
			}
		}
		return true
	})
	return out
}
