// Package viewstest holds what the views' tests share: the fixed time and the locales pages are
// rendered at, and rendering a component and parsing the page back.
package viewstest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"kashi/phrase"
)

// T0 is the fixed "now" of every page test.
var T0 = time.Date(2026, 3, 9, 14, 30, 5, 0, time.UTC)

// En and Zh are the locales the page tests render in.
var (
	En = phrase.Locale{Lang: phrase.LangEN}
	Zh = phrase.Locale{Lang: phrase.LangZH}
)

// Render renders c, failing the test on an error.
func Render(t *testing.T, c templ.Component) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.Bytes()
}

// Parse parses a rendered page, failing the test on an error.
func Parse(t *testing.T, html []byte) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(html))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}
