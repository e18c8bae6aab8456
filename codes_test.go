package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
)

// TestInternalCodesMatchAPI checks the codes that packages which may not import api keep
// for themselves (mayImport) against api's lists: the store's task states and GPU states, the
// scheduler's wait reasons. Each copy is read from its source, so a code added on either side
// only fails here.
func TestInternalCodesMatchAPI(t *testing.T) {
	t.Run("models task states", func(t *testing.T) { checkCodes(t, "models", "TaskQueued", api.TaskStates()) })
	t.Run("models GPU states", func(t *testing.T) { checkCodes(t, "models", "GPUFree", api.GPUStates()) })
	t.Run("scheduler wait reasons", func(t *testing.T) { checkCodes(t, "scheduler", "ReasonNoFreeGPUs", api.WaitReasons()) })
}

// TestOutputBoundMatchesAPI: the store and the agent bound a task's output alike.
func TestOutputBoundMatchesAPI(t *testing.T) {
	if api.MaxOutputUnits != models.MaxOutputUnits {
		t.Errorf("api.MaxOutputUnits %d, models.MaxOutputUnits %d", api.MaxOutputUnits, models.MaxOutputUnits)
	}
}

// checkCodes compares the codes beside member in dir (codes) with api's list.
func checkCodes[C ~string](t *testing.T, dir, member string, list []C) {
	t.Helper()
	if diff := cmp.Diff(slices.Sorted(slices.Values(list)), codes[C](t, dir, member)); diff != "" {
		t.Errorf("%s's codes beside %s (-api +%s):\n%s", dir, member, dir, diff)
	}
}

// codes reads the non-test Go files of the package in dir and returns, sorted, the string
// values of the constants of member's kind: every constant of member's type when it has one,
// else every constant of the declaration that declares member.
func codes[C ~string](t *testing.T, dir, member string) []C {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var decls []*ast.GenDecl
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				decls = append(decls, gd)
			}
		}
	}
	// Find member: its declaration and its type.
	var home *ast.GenDecl
	typ := ""
	for _, gd := range decls {
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if slices.ContainsFunc(vs.Names, func(n *ast.Ident) bool { return n.Name == member }) {
				home = gd
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
			}
		}
	}
	if home == nil {
		t.Fatalf("package %s declares no constant %s", dir, member)
	}
	var out []C
	for _, gd := range decls {
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			id, _ := vs.Type.(*ast.Ident)
			if typ != "" && (id == nil || id.Name != typ) || typ == "" && gd != home {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: a constant beside %s is not a string literal", dir, member)
				}
				s, _ := strconv.Unquote(lit.Value)
				out = append(out, C(s))
			}
		}
	}
	slices.Sort(out)
	return out
}
