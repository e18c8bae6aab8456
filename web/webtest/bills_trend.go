// What the bills page's cost charts show, and the idle cost they are checked against.

package webtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/billing"
)

// TrendPage is what the bills page's cost charts show a role, as BillWorld.Trend reads it.
type TrendPage struct {
	Months   int      // columns
	Segments []string // every segment's title, column by column, bottom up
	Legend   []string
	Lines    map[string][3]string // project → last month, this month, difference
}

// Trend opens /bills as role, fails the test unless it answers 200 with the cost charts, and
// reads the charts' columns, segments, legend and per-project lines.
func (w BillWorld) Trend(t *testing.T, role string) TrendPage {
	t.Helper()
	r := w.As(role, "/bills")
	if r.Code != http.StatusOK {
		t.Fatalf("GET /bills as %s = %d %s", role, r.Code, r.Body)
	}
	doc := Parse(t, string(r.Body))
	if doc.Find(`[data-testid=cost-trend]`).Length() != 1 {
		t.Fatalf("%s sees no cost charts", role)
	}
	p := TrendPage{Months: doc.Find(`[data-testid=cost-column]`).Length(), Lines: map[string][3]string{}}
	doc.Find(`[data-testid=cost-column] rect title`).Each(func(_ int, s *goquery.Selection) {
		p.Segments = append(p.Segments, s.Text())
	})
	doc.Find(`[data-testid=cost-chart] figcaption .item`).Each(func(_ int, s *goquery.Selection) {
		p.Legend = append(p.Legend, strings.TrimSpace(s.Text()))
	})
	doc.Find(`[data-testid=cost-line]`).Each(func(_ int, s *goquery.Selection) {
		p.Lines[s.AttrOr("data-project", "")] = [3]string{s.Find(`[data-testid=cost-last]`).Text(),
			s.Find(`[data-testid=cost-now]`).Text(), s.Find(`[data-testid=cost-diff]`).Text()}
	})
	return p
}

// IdleFen is the cost, in fen, of the idle cards in February's bills of projects, from the
// API's bills through billing.IdleFen.
func (w BillWorld) IdleFen(t *testing.T, projects ...string) int64 {
	t.Helper()
	var body struct{ Bills []billing.Bill }
	if err := json.Unmarshal(w.As("finance", "/api/v1/bills/"+BillMonth).Body, &body); err != nil {
		t.Fatal(err)
	}
	var fen int64
	for _, b := range body.Bills {
		for _, p := range projects {
			if b.Project == p {
				fen += billing.IdleFen(b)
			}
		}
	}
	return fen
}
