package bills_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/web/webtest"
)

// TestBillsCostTrend: the bills page charts February (last month) and March (this month) —
// no month before had a bill — stacked by project with the idle cost apart, and compares
// each project's cost this month with last month; the amounts are the bills'.
func TestBillsCostTrend(t *testing.T) {
	w := webtest.NewBillWorld(t)
	idle := w.IdleFen(t, "vision", "nlp")
	if idle != 7500 {
		t.Fatalf("February's idle cost = %d fen, want 7500 (vision's idle card 3 h and nlp's 2 h at ¥15)", idle)
	}
	p := w.Trend(t, "finance")
	if p.Months != 2 {
		t.Errorf("the chart has %d months, want 2 (February and March)", p.Months)
	}
	want := []string{"vision: ¥67.50", "Idle cards: ¥75.00"} // nlp's cost was all idle: no segment of its own
	if strings.Join(p.Segments, "|") != strings.Join(want, "|") {
		t.Errorf("segments = %q, want %q", p.Segments, want)
	}
	if got := strings.Join(p.Legend, "|"); got != "vision|nlp|Idle cards" {
		t.Errorf("legend = %q, want the projects by cost, then idle", got)
	}
	wantLines := map[string][3]string{"vision": {"¥112.50", "¥0.00", "-¥112.50"}, "nlp": {"¥30.00", "¥0.00", "-¥30.00"}}
	for name, l := range wantLines {
		if p.Lines[name] != l {
			t.Errorf("%s: last, this month, difference = %q, want %q", name, p.Lines[name], l)
		}
	}
}

// TestBillsCostTrendRoles: a member sees only their project's cost in the charts, a lead
// only theirs, finance every project's; the viewer no bills page at all.
func TestBillsCostTrendRoles(t *testing.T) {
	w := webtest.NewBillWorld(t)
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
			p := w.Trend(t, tc.role)
			if got := strings.Join(p.Segments, "|"); got != tc.segments {
				t.Errorf("segments = %q, want %q", got, tc.segments)
			}
			var lines []string
			for n := range p.Lines {
				lines = append(lines, n)
			}
			if strings.Join(webtest.Sorted(lines), ",") != strings.Join(tc.lines, ",") {
				t.Errorf("compared projects = %v, want %v", lines, tc.lines)
			}
		})
	}
	if r := w.As("viewer", "/bills"); r.Code != http.StatusForbidden {
		t.Errorf("viewer GET /bills = %d, want 403", r.Code)
	}
}

// TestBillsCostTrendIssuedOnly: months before last month count issued bills only. With
// vision's February issued and the clock in May, February shows vision's cost and not nlp's
// (never issued); April and May are computed and empty; March, between, is drawn empty.
func TestBillsCostTrendIssuedOnly(t *testing.T) {
	w := webtest.NewBillWorld(t)
	if r := w.PostAs("finance", "/api/v1/bills/vision/"+webtest.BillMonth+"/issue", "{}"); r.Code != http.StatusCreated {
		t.Fatalf("issue = %d %s", r.Code, r.Body)
	}
	w.SetNow(time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC))
	p := w.Trend(t, "finance")
	if p.Months != 4 {
		t.Errorf("the chart has %d months, want 4 (February to May)", p.Months)
	}
	if got := strings.Join(p.Segments, "|"); got != "vision: ¥67.50|Idle cards: ¥45.00" {
		t.Errorf("segments = %q, want vision's issued February only", got)
	}
	if len(p.Lines) != 0 {
		t.Errorf("compared projects = %v, want none: nothing was charged in April or May", p.Lines)
	}
}

// TestWeeklyReportNote: the weekly report's in-app notification reads in the viewer's
// language and links to the week's report, whatever language its chat text was sent in.
func TestWeeklyReportNote(t *testing.T) {
	w := webtest.NewBillWorld(t)
	p, err := w.Store.ProjectByName(context.Background(), "nlp")
	if err != nil {
		t.Fatal(err)
	}
	key := "weekly-report:2026-W09:" + strconv.FormatInt(p.ID, 10)
	if _, err := w.Store.NotifyProject(context.Background(), p.ID, key, "weekly-report", "Kashi weekly report: nlp", webtest.T0); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{"en": "The report of week 2026-W09 is out.", "zh-CN": "2026-W09 周的周报已发出。"} {
		r := w.Get("/notifications", append(webtest.Bearer(w.Tokens["lead"]), "Cookie", "kashi_lang="+lang)...)
		doc := webtest.Parse(t, r.Body.String())
		a := doc.Find(`a[href="/reports?week=2026-W09"]`)
		if a.Length() != 1 || strings.TrimSpace(a.Text()) != want {
			t.Errorf("%s: the note links %d times, text %q; want %q", lang, a.Length(), a.Text(), want)
		}
	}
}

// TestBillsCostTrendEmpty: with nothing charged in any month shown, the page says so
// instead of drawing an empty chart.
func TestBillsCostTrendEmpty(t *testing.T) {
	w := webtest.NewBillWorld(t)
	w.SetNow(time.Date(2027, 3, 10, 0, 0, 0, 0, time.UTC)) // February 2026 is beyond the twelve months
	doc := webtest.Parse(t, string(w.As("finance", "/bills?month=2027-02").Body))
	if doc.Find(`[data-testid=cost-chart-none]`).Length() != 1 || doc.Find(`[data-testid=cost-chart]`).Length() != 0 {
		t.Errorf("no cost in the months shown: want the empty notice and no chart")
	}
	if doc.Find(`[data-testid=cost-compare-none]`).Length() != 1 {
		t.Errorf("no cost this month or last: want the compare notice")
	}
}
