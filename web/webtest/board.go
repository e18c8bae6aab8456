// Reading HTML answers: parsing, and the attributes of what a selector matches.

package webtest

import (
	"sort"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Parse reads an HTML answer.
func Parse(t *testing.T, body string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return doc
}

// Attrs lists the attribute name of every element matching sel, sorted.
func Attrs(doc *goquery.Document, sel, name string) []string {
	var out []string
	doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr(name, "")) })
	sort.Strings(out)
	return out
}
