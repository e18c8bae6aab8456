package bills_test

import (
	"strings"
	"testing"
	"time"

	"kashi/web/webtest"
)

// TestPagesOpenOnLatestPeriodWithData: without ?month= or ?week=, the bills page and the
// weekly report open on the last period that ended when it held cards, else on the latest
// one with card time, saying so; with no card time at all they stay and say it is empty.
func TestPagesOpenOnLatestPeriodWithData(t *testing.T) {
	w := webtest.NewBillWorld(t)
	value := func(path, role string) (string, string) {
		doc := webtest.Parse(t, string(w.As(role, path).Body))
		notice := doc.Find(`[data-testid=bills-notice], [data-testid=report-notice]`).Text()
		return doc.Find(`input[name=month], input[name=week]`).AttrOr("value", ""), notice
	}
	// At t0 (2 March) February, the last month that ended, holds the tasks: no notice.
	if m, n := value("/bills", "finance"); m != webtest.BillMonth || n != "" {
		t.Errorf("bills at t0 open on %q with notice %q, want %s without", m, n, webtest.BillMonth)
	}
	// On 10 April March is over and held nothing: February, said so.
	w.SetNow(time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC))
	if m, n := value("/bills", "finance"); m != webtest.BillMonth || !strings.Contains(n, "2026-03") {
		t.Errorf("bills in April open on %q with notice %q, want %s naming March", m, n, webtest.BillMonth)
	}
	if wk, n := value("/reports", "member"); wk != webtest.ReportWeek || !strings.Contains(n, "2026-W14") {
		t.Errorf("member's report in April opens on %q with notice %q, want %s naming W14", wk, n, webtest.ReportWeek)
	}
	// The lead of nlp: bert ran on 11 February, week 7 too.
	if wk, _ := value("/reports", "lead"); wk != webtest.ReportWeek {
		t.Errorf("lead's report opens on %q, want %s", wk, webtest.ReportWeek)
	}

	empty := webtest.NewServer(t)
	r := empty.Get("/bills", webtest.Bearer(empty.Token)...)
	doc := webtest.Parse(t, r.Body.String())
	if doc.Find(`[data-testid=bills-notice]`).Length() != 0 || doc.Find(`input[name=month]`).AttrOr("value", "") != "2026-02" {
		t.Errorf("bills with no card time: month %q, notice %q; want 2026-02 without", doc.Find(`input[name=month]`).AttrOr("value", ""),
			doc.Find(`[data-testid=bills-notice]`).Text())
	}
	if doc.Find(`[data-testid=bills-no-usage], [data-testid=bills-empty]`).Length() != 1 {
		t.Errorf("bills with no card time do not say so")
	}
	doc = webtest.Parse(t, empty.Get("/reports", webtest.Bearer(empty.Token)...).Body.String())
	if doc.Find(`[data-testid=report-empty]`).Length() != 1 || doc.Find(`[data-testid=report-notice]`).Length() != 0 {
		t.Errorf("report with no card time does not say it is empty, or names another week")
	}

	// A task running now and nothing before: the running month and week.
	empty.Projects("vision")
	empty.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1))
	empty.Place(empty.Create(webtest.Task("now").Ready(), webtest.T0.Add(-2*time.Hour)), webtest.T0.Add(-time.Hour), webtest.UUIDOf("n1", 0))
	doc = webtest.Parse(t, empty.Get("/bills", webtest.Bearer(empty.Token)...).Body.String())
	if m := doc.Find(`input[name=month]`).AttrOr("value", ""); m != "2026-03" || !strings.Contains(doc.Find(`[data-testid=bills-notice]`).Text(), "2026-02") {
		t.Errorf("bills with a task running now open on %q, notice %q; want 2026-03 naming February", m, doc.Find(`[data-testid=bills-notice]`).Text())
	}
	doc = webtest.Parse(t, empty.Get("/reports", webtest.Bearer(empty.Token)...).Body.String())
	if wk := doc.Find(`input[name=week]`).AttrOr("value", ""); wk != "2026-W10" {
		t.Errorf("report with a task running now opens on %q, want 2026-W10", wk)
	}
}
