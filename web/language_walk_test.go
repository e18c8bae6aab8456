package web_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"kashi/phrase"
	"kashi/web/webtest"
)

// TestLanguageWalk opens every page in English and in Chinese, and the pages that refused a
// form, and fails on text of the other language or a catalog key shown as it is. The server
// was given things to say on every page: the real scaling loop's events and reasons it did not
// act, a task waiting on its quota, validation errors, error pages. English pages carry no
// Chinese but the brand and the switcher's 中文; Chinese pages carry no English catalog
// sentence, and no English word (one of the English catalog's not also in the Chinese one)
// beyond the names the fixture gave. The alerts page (the board's) is walked for keys and
// Chinese only, until its texts are phrases too.
func TestLanguageWalk(t *testing.T) {
	ps, pages := webtest.SeededPages(t)
	pages = append(pages, "/no-such-page")
	forms := map[string]func(lang string) answer{ // each renders a page with a refused field
		"POST /projects/requests": func(lang string) answer {
			r := ps.Form("/projects/requests", url.Values{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"limit"},
				"value": {"many"}, "reason": {"more"}}, "Cookie", "kashi_lang="+lang)
			return read(t, r.StatusCode, r.Body)
		},
		"POST /people": func(lang string) answer {
			r := ps.Form("/people", url.Values{"name": {"no spaces allowed"}, "password": {"pw-long-enough"}, "role": {"viewer"}},
				"Cookie", "kashi_lang="+lang)
			return read(t, r.StatusCode, r.Body)
		},
		"POST /queue/tasks": func(lang string) answer {
			r := ps.Form("/queue/tasks", url.Values{"project": {"vision"}, "name": {"x"}, "gpus": {"1"}, "specs": {"A100-80G", "Z999"},
				"regions": {"cn-gz1"}, "queue": {"long"}, "priority": {"normal"}, "command": {"python"}, "data_ready": {"on"}},
				"Cookie", "kashi_lang="+lang)
			return read(t, r.StatusCode, r.Body)
		},
		"POST /projects/:id/templates": func(lang string) answer {
			p, err := ps.Store.ProjectByName(context.Background(), "vision")
			if err != nil {
				t.Fatal(err)
			}
			r := ps.Form(fmt.Sprintf("/projects/%d/templates", p.ID), url.Values{"name": {"twice"}, "gpus": {"1"}, "queue": {"long"},
				"priority": {"normal"}, "command": {"eval"}, "specs": {"A100-80G", "A100-80G"}, "regions": {"cn-gz1"}},
				"Cookie", "kashi_lang="+lang)
			return read(t, r.StatusCode, r.Body)
		},
		"POST /pools/a100": func(lang string) answer {
			v := url.Values{}
			for k, x := range map[string]string{"provider": "sim", "spec": "A100-80G", "gpus_per_node": "8", "flavor": "gpu.a100.8x",
				"image": "kashi-agent", "region": "cn-gz1", "zone": "cn-gz1-a", "enabled": "on", "min_nodes": "5", "max_nodes": "2"} {
				v.Set(k, x)
			}
			r := ps.Form("/pools/a100", v, "Cookie", "kashi_lang="+lang)
			return read(t, r.StatusCode, r.Body)
		},
	}
	names := map[string]bool{} // what the fixture named: shown as it is in both languages
	for _, n := range []string{"vision", "nlp", "tester", "alice", "train", "big", "waits", "gone", "wide", "default", "tests",
		"first", "more", "many"} {
		names[n] = true
	}

	keys := regexp.MustCompile(`\b[a-z_]+\.[a-z_.-]+[a-z]\b`)
	catalog, zh := phrase.Locale{Lang: phrase.LangEN}.Catalog(), phrase.Locale{Lang: phrase.LangZH}.Catalog()
	var english []string // catalog sentences: two words or more, not the same in Chinese
	words := map[string]bool{}
	word := regexp.MustCompile(`[A-Za-z]{3,}`)
	for k, v := range catalog {
		if strings.Count(v, " ") >= 2 && !strings.Contains(v, "%") && zh[k] != v {
			english = append(english, v)
		}
		for _, w := range word.FindAllString(v, -1) {
			words[strings.ToLower(w)] = true
		}
	}
	for _, v := range zh {
		for _, w := range word.FindAllString(v, -1) {
			delete(words, strings.ToLower(w)) // an identifier the Chinese text names too
		}
	}
	check := func(lang, what string, code int, body string) {
		doc := webtest.Parse(t, body)
		doc.Find("script, style, code, pre, noscript, .brand, .langs, .host, [data-testid=task-name]").Remove()
		text := spaced(doc.Find("body"))
		for _, m := range keys.FindAllString(text, -1) {
			if _, ok := catalog[m]; ok {
				t.Errorf("%s %s (%d) shows the catalog key %q", lang, what, code, m)
			}
		}
		if lang == phrase.LangEN {
			for _, r := range text {
				if unicode.Is(unicode.Han, r) {
					t.Errorf("%s %s shows Chinese: %q", lang, what, webtest.Around(text, string(r)))
					break
				}
			}
			return
		}
		if !strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("%s %s shows no Chinese", lang, what)
		}
		for _, e := range english {
			if strings.Contains(text, e) {
				t.Errorf("%s %s shows English: %q", lang, what, e)
			}
		}
		if what == "/alerts" {
			return
		}
		seen := map[string]bool{}
		for _, w := range word.FindAllString(text, -1) {
			lw := strings.ToLower(w)
			if words[lw] && !names[lw] && !seen[lw] {
				seen[lw] = true
				t.Errorf("%s %s shows the English word %q: %q", lang, what, w, webtest.Around(text, w))
			}
		}
	}
	for _, lang := range []string{phrase.LangEN, phrase.LangZH} {
		for _, path := range pages {
			w := ps.Get(path, "Cookie", "kashi_lang="+lang)
			if w.Code >= 300 && w.Code != 404 {
				t.Errorf("%s %s = %d, want a page", lang, path, w.Code)
			}
			check(lang, path, w.Code, w.Body.String())
		}
		for what, post := range forms {
			a := post(lang)
			if a.code != 422 {
				t.Errorf("%s %s = %d, want 422 with the form's error", lang, what, a.code)
			}
			check(lang, what, a.code, a.body)
		}
	}
}

// answer is a page's status and body.
type answer struct {
	code int
	body string
}

// read is the answer of a response.
func read(t *testing.T, code int, body io.ReadCloser) answer {
	t.Helper()
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{code, string(b)}
}

// spaced is the text of s with a space between the texts of elements, so that words of
// neighbouring cells do not run together.
func spaced(s *goquery.Selection) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		b.WriteByte(' ')
	}
	for _, n := range s.Nodes {
		walk(n)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
