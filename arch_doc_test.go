package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/architecture.md's import table from mayImport")

// The import table in docs/architecture.md sits between these two lines.
const (
	importTableBegin = "<!-- import table: made from mayImport in arch_test.go by `go test . -run ArchDoc -update`; do not edit by hand -->"
	importTableEnd   = "<!-- end of import table -->"
)

// importTable renders mayImport as a Markdown table, one row per package in name order.
func importTable(may map[string][]string) string {
	pkgs := make([]string, 0, len(may))
	for p := range may {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var b strings.Builder
	b.WriteString("| package | may import |\n|---|---|\n")
	for _, p := range pkgs {
		imports := slices.Sorted(slices.Values(may[p]))
		cell := "—"
		if len(imports) > 0 {
			cell = "`" + strings.Join(imports, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", p, cell)
	}
	return b.String()
}

// TestArchDocImportTable checks that docs/architecture.md shows mayImport as it is, so the
// documented layout is the one TestImportRules holds; -update rewrites the table.
func TestArchDocImportTable(t *testing.T) {
	const path = "docs/architecture.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok := strings.Cut(doc, importTableBegin+"\n")
	if !ok {
		t.Fatalf("%s has no line %q", path, importTableBegin)
	}
	got, after, ok := strings.Cut(rest, importTableEnd)
	if !ok {
		t.Fatalf("%s has no line %q after the table's first", path, importTableEnd)
	}
	want := importTable(mayImport)
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(before+importTableBegin+"\n"+want+importTableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's import table differs from mayImport: run go test . -run ArchDoc -update\ngot:\n%s\nwant:\n%s", path, got, want)
}

func TestArchDocRender(t *testing.T) {
	got := importTable(map[string][]string{"web": {"views", "api"}, "api": nil})
	want := "| package | may import |\n|---|---|\n| `api` | — |\n| `web` | `api`, `views` |\n"
	if got != want {
		t.Errorf("importTable(...) =\n%s\nwant\n%s", got, want)
	}
}

// docFiles are the Markdown files whose relative links must resolve.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "BENCHMARKS.md", "SECURITY.md"}
	more, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// mdLinks lists the link targets of a Markdown text, leaving out fenced code and code spans.
func mdLinks(text string) []string {
	var out []string
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors lists the heading anchors GitHub makes for a Markdown text: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', a repeated heading numbered.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		title, ok := strings.CutPrefix(line, "#")
		if fenced || !ok {
			continue
		}
		title = strings.TrimSpace(strings.TrimLeft(title, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

// TestDocLinks checks that every relative link of the docs names a file that exists and,
// where it names a heading of a Markdown file, a heading that exists.
func TestDocLinks(t *testing.T) {
	for _, doc := range docFiles(t) {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range mdLinks(string(raw)) {
			if scheme.MatchString(link) {
				continue
			}
			target, frag, _ := strings.Cut(link, "#")
			file := doc
			if target != "" {
				file = filepath.Join(filepath.Dir(doc), filepath.FromSlash(target))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s links to %s: no such file", doc, link)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			text, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s links to %s: %v", doc, link, err)
				continue
			}
			if !anchors(string(text))[frag] {
				t.Errorf("%s links to %s: %s has no heading #%s", doc, link, file, frag)
			}
		}
	}
}

func TestMDLinksAndAnchors(t *testing.T) {
	text := "# Kashi 卡时\n\nSee [ops](docs/operating.md#flags), ![board](docs/board.png) and `[x](no.md)`.\n" +
		"```\n[y](fenced.md)\n```\n[ref]: docs/api.md\n## The `kashi agent`, on nodes\n## Flags\n## Flags\n"
	got := mdLinks(text)
	want := []string{"docs/operating.md#flags", "docs/board.png", "docs/api.md"}
	if !slices.Equal(got, want) {
		t.Errorf("mdLinks(...) = %q, want %q", got, want)
	}
	a := anchors(text)
	for _, w := range []string{"kashi-卡时", "the-kashi-agent-on-nodes", "flags", "flags-1"} {
		if !a[w] {
			t.Errorf("anchors(...) lacks %q: %v", w, a)
		}
	}
}
