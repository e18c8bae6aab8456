package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/billing"
)

// trendPage is what the bills page's cost charts show a role.
type trendPage struct {
	months   int      // columns
	segments []string // every segment's title, column by column, bottom up
	legend   []string
	lines    map[string][3]string // project → last month, this month, difference
}

func (w billWorld) trend(t *testing.T, role string) trendPage {
	t.Helper()
	r := w.as(role, "/bills")
	if r.Code != http.StatusOK {
		t.Fatalf("GET /bills as %s = %d %s", role, r.Code, r.Body)
	}
	doc := parse(t, string(r.Body))
	if doc.Find(`[data-testid=cost-trend]`).Length() != 1 {
		t.Fatalf("%s sees no cost charts", role)
	}
	p := trendPage{months: doc.Find(`[data-testid=cost-column]`).Length(), lines: map[string][3]string{}}
	doc.Find(`[data-testid=cost-column] rect title`).Each(func(_ int, s *goquery.Selection) {
		p.segments = append(p.segments, s.Text())
	})
	doc.Find(`[data-testid=cost-chart] figcaption .item`).Each(func(_ int, s *goquery.Selection) {
		p.legend = append(p.legend, strings.TrimSpace(s.Text()))
	})
	doc.Find(`[data-testid=cost-line]`).Each(func(_ int, s *goquery.Selection) {
		p.lines[s.AttrOr("data-project", "")] = [3]string{s.Find(`[data-testid=cost-last]`).Text(),
			s.Find(`[data-testid=cost-now]`).Text(), s.Find(`[data-testid=cost-diff]`).Text()}
	})
	return p
}

// idleYuan is the cost of the idle cards in February's bills of projects, from the API's
// bills through billing.IdleFen.
func (w billWorld) idleFen(t *testing.T, projects ...string) int64 {
	t.Helper()
	var body struct{ Bills []billing.Bill }
	if err := json.Unmarshal(w.as("finance", "/api/v1/bills/"+billMonth).Body, &body); err != nil {
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

// TestBillsCostTrend: the bills page charts February (last month) and March (this month) —
// no month before had a bill — stacked by project with the idle cost apart, and compares
// each project's cost this month with last month; the amounts are the bills'.
func TestBillsCostTrend(t *testing.T) {
	w := newBillWorld(t)
	idle := w.idleFen(t, "vision", "nlp")
	if idle != 7500 {
		t.Fatalf("February's idle cost = %d fen, want 7500 (vision's idle card 3 h and nlp's 2 h at ¥15)", idle)
	}
	p := w.trend(t, "finance")
	if p.months != 2 {
		t.Errorf("the chart has %d months, want 2 (February and March)", p.months)
	}
	want := []string{"vision: ¥67.50", "Idle cards: ¥75.00"} // nlp's cost was all idle: no segment of its own
	if strings.Join(p.segments, "|") != strings.Join(want, "|") {
		t.Errorf("segments = %q, want %q", p.segments, want)
	}
	if got := strings.Join(p.legend, "|"); got != "vision|nlp|Idle cards" {
		t.Errorf("legend = %q, want the projects by cost, then idle", got)
	}
	wantLines := map[string][3]string{"vision": {"¥112.50", "¥0.00", "-¥112.50"}, "nlp": {"¥30.00", "¥0.00", "-¥30.00"}}
	for name, l := range wantLines {
		if p.lines[name] != l {
			t.Errorf("%s: last, this month, difference = %q, want %q", name, p.lines[name], l)
		}
	}
}

// TestBillsCostTrendRoles: a member sees only their project's cost in the charts, a lead
// only theirs, finance every project's; the viewer no bills page at all.
func TestBillsCostTrendRoles(t *testing.T) {
	w := newBillWorld(t)
	tests := map[string]struct {
		role, segments string
		lines          []string
	}{
		"member of vision": {"member", "vision: ¥67.50|Idle cards: ¥45.00", []string{"vision"}},
		"lead of nlp":      {"lead", "Idle cards: ¥30.00", []string{"nlp"}},
		"finance":          {"finance", "vision: ¥67.50|Idle cards: ¥75.00", []string{"nlp", "vision"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := w.trend(t, tc.role)
			if got := strings.Join(p.segments, "|"); got != tc.segments {
				t.Errorf("segments = %q, want %q", got, tc.segments)
			}
			var lines []string
			for n := range p.lines {
				lines = append(lines, n)
			}
			if strings.Join(sorted(lines), ",") != strings.Join(tc.lines, ",") {
				t.Errorf("compared projects = %v, want %v", lines, tc.lines)
			}
		})
	}
	if r := w.as("viewer", "/bills"); r.Code != http.StatusForbidden {
		t.Errorf("viewer GET /bills = %d, want 403", r.Code)
	}
}

// TestBillsCostTrendIssuedOnly: months before last month count issued bills only. With
// vision's February issued and the clock in May, February shows vision's cost and not nlp's
// (never issued); April and May are computed and empty; March, between, is drawn empty.
func TestBillsCostTrendIssuedOnly(t *testing.T) {
	w := newBillWorld(t)
	if r := w.postAs("finance", "/api/v1/bills/vision/"+billMonth+"/issue", "{}"); r.Code != http.StatusCreated {
		t.Fatalf("issue = %d %s", r.Code, r.Body)
	}
	w.setNow(time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC))
	p := w.trend(t, "finance")
	if p.months != 4 {
		t.Errorf("the chart has %d months, want 4 (February to May)", p.months)
	}
	if got := strings.Join(p.segments, "|"); got != "vision: ¥67.50|Idle cards: ¥45.00" {
		t.Errorf("segments = %q, want vision's issued February only", got)
	}
	if len(p.lines) != 0 {
		t.Errorf("compared projects = %v, want none: nothing was charged in April or May", p.lines)
	}
}

// TestWeeklyReportNote: the weekly report's in-app notification reads in the viewer's
// language and links to the week's report, whatever language its chat text was sent in.
func TestWeeklyReportNote(t *testing.T) {
	w := newBillWorld(t)
	p, err := w.store.ProjectByName(context.Background(), "nlp")
	if err != nil {
		t.Fatal(err)
	}
	key := "weekly-report:2026-W09:" + strconv.FormatInt(p.ID, 10)
	if _, err := w.store.NotifyProject(context.Background(), p.ID, key, "weekly-report", "Kashi weekly report: nlp", t0); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{"en": "The report of week 2026-W09 is out.", "zh-CN": "2026-W09 周的周报已发出。"} {
		r := w.get("/notifications", append(bearer(w.tokens["lead"]), "Cookie", "kashi_lang="+lang)...)
		doc := parse(t, r.Body.String())
		a := doc.Find(`a[href="/reports?week=2026-W09"]`)
		if a.Length() != 1 || strings.TrimSpace(a.Text()) != want {
			t.Errorf("%s: the note links %d times, text %q; want %q", lang, a.Length(), a.Text(), want)
		}
	}
}

// TestBillsCostTrendEmpty: with nothing charged in any month shown, the page says so
// instead of drawing an empty chart.
func TestBillsCostTrendEmpty(t *testing.T) {
	w := newBillWorld(t)
	w.setNow(time.Date(2027, 3, 10, 0, 0, 0, 0, time.UTC)) // February 2026 is beyond the twelve months
	doc := parse(t, string(w.as("finance", "/bills?month=2027-02").Body))
	if doc.Find(`[data-testid=cost-chart-none]`).Length() != 1 || doc.Find(`[data-testid=cost-chart]`).Length() != 0 {
		t.Errorf("no cost in the months shown: want the empty notice and no chart")
	}
	if doc.Find(`[data-testid=cost-compare-none]`).Length() != 1 {
		t.Errorf("no cost this month or last: want the compare notice")
	}
}
