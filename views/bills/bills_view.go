package bills

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
)

// Helpers of bills.templ: money and hours as text, the words for billing's codes, links.

// pricingText names how a line is priced.
func pricingText(l phrase.Locale, p string) string {
	switch p {
	case "card-hour":
		return l.T("bill.pricing.card_hour")
	case "overflow":
		return l.T("bill.pricing.overflow")
	case "package":
		return l.T("bill.pricing.package")
	case "unit":
		return l.T("bill.pricing.unit")
	case "task":
		return l.T("bill.pricing.task")
	}
	return p
}

// rateText is a line's rate with its unit: per card-hour, per output unit or per task.
func rateText(l phrase.Locale, pricing string, rateFen int64) string {
	switch pricing {
	case "package":
		return "—"
	case "unit":
		return l.T("bill.rate.per_unit", views.Yuan(rateFen))
	case "task":
		return l.T("bill.rate.per_task", views.Yuan(rateFen))
	}
	return l.T("bill.rate.per_hour", views.Yuan(rateFen))
}

// itemText names a summary item.
func itemText(l phrase.Locale, it BillItem) string {
	switch it.Kind {
	case "spec":
		return l.T("bill.item.spec", it.Spec)
	case "overflow":
		return l.T("bill.item.overflow", it.Spec)
	case "package-fee":
		return l.T("bill.item.package_fee", it.Spec)
	case "package-beyond":
		return l.T("bill.item.package_beyond", it.Spec)
	case "booking-unused":
		return l.T("bill.item.booking_unused", it.Spec, l.Percent(it.Pct))
	case "adjustment":
		return l.T("bill.item.adjustment")
	}
	return it.Kind
}

// itemHasHours reports whether a summary item carries card time.
func itemHasHours(it BillItem) bool { return it.Kind != "package-fee" && it.Kind != "adjustment" }

// modeText names a billing mode (三种口径).
func modeText(l phrase.Locale, mode string) string {
	switch mode {
	case "payg":
		return l.T("bill.mode.payg")
	case "reserved":
		return l.T("bill.mode.reserved")
	case "per-task":
		return l.T("bill.mode.per_task")
	}
	return mode
}

// endingText names how a task ended (billing's Line.Ending) when the bill was computed;
// a task not ended is running.
func endingText(l phrase.Locale, ending string) string {
	switch ending {
	case "":
		return l.T("bill.ending.running")
	case "finished":
		return l.T("bill.ending.finished")
	case "failed":
		return l.T("bill.ending.failed")
	case "cancelled":
		return l.T("bill.ending.cancelled")
	case "timed-out":
		return l.T("bill.ending.timed_out")
	case "reclaimed":
		return l.T("bill.ending.reclaimed")
	case "released":
		return l.T("bill.ending.released")
	case "lost":
		return l.T("bill.ending.lost")
	}
	return ending
}

// billURL is a project's bill page of a month.
func billURL(project, month string) templ.SafeURL {
	return templ.SafeURL("/bills/" + url.PathEscape(project) + "/" + month)
}

// billDownload is the download of a project's bill of a month in a format.
func billDownload(project, month, format string) templ.SafeURL {
	return templ.SafeURL("/api/v1/bills/" + url.PathEscape(project) + "/" + month + "?format=" + format)
}

// monthDownload is the download of every project's bill of a month in a format.
func monthDownload(month, format string) templ.SafeURL {
	return templ.SafeURL("/api/v1/bills/" + month + "?format=" + format)
}

// issueAction is where the issue form posts.
func issueAction(project, month string) templ.SafeURL {
	return templ.SafeURL("/bills/" + url.PathEscape(project) + "/" + month + "/issue")
}

// periodText is a bill's period: its first day to its last (the end is exclusive).
func periodText(from, to time.Time) string {
	return from.Format("2006-01-02") + " – " + to.Add(-time.Second).Format("2006-01-02")
}

// rowCount is the number of projects in the list.
func rowCount(d BillsData) int {
	n := 0
	for _, g := range d.Groups {
		n += len(g.Rows)
	}
	return n
}

// groupTitle is a tag group's heading.
func groupTitle(l phrase.Locale, g BillGroup) string {
	if g.Tag == "" {
		return l.T("bills.untagged")
	}
	return l.T("bills.tag", g.Tag)
}

// joined lists names with commas.
func joined(names []string) string { return strings.Join(names, ", ") }

// LatestMonthNotice says the bills page opened on month, the latest with card time, as the
// last month that ended held none.
func LatestMonthNotice(l phrase.Locale, ended, month string) string {
	return l.T("bills.latest_notice", ended, month)
}

// LatestWeekNotice says the report opened on week, the latest with card time, as the last
// week that ended held none.
func LatestWeekNotice(l phrase.Locale, ended, week string) string {
	return l.T("report.latest_notice", ended, week)
}

// IssuedNotice says that a bill was issued.
func IssuedNotice(l phrase.Locale, project, month string) string {
	return l.T("bill.issued_notice", project, month)
}

// issueAllAction is where the bills page's "issue all" form posts.
func issueAllAction(month string) templ.SafeURL {
	return templ.SafeURL("/bills/" + url.PathEscape(month) + "/issue")
}

// issueAllConfirm asks before "issue all": the month, how many bills and their total, and
// how many stay unissued for lack of a price.
func issueAllConfirm(l phrase.Locale, month string, o IssueOffer) string {
	s := l.T("confirm.bills_issue_all", month, l.Int(o.Projects), views.Yuan(o.TotalFen))
	if o.Unpriced > 0 {
		s += " " + l.T("bills.issue_all_unpriced", l.Int(o.Unpriced))
	}
	return s
}

// notIssuedWhy says why "issue all" left a bill unissued.
func notIssuedWhy(l phrase.Locale, n NotIssued) string {
	switch {
	case len(n.MissingPrices) > 0:
		return l.T("bill.missing_prices", joined(n.MissingPrices))
	case n.Problem != "":
		return n.Problem
	}
	return l.T("bills.issued_meanwhile")
}

// IssuedConflict says that a bill is already issued and cannot be issued again.
func IssuedConflict(l phrase.Locale, project, month string) string {
	return l.T("bill.err.issued", project, month)
}

// lineClass is one class of a line's held hours, by its catalog key.
type lineClass struct {
	key string
	s   int64
}

// otherClasses are the classes of a line's held hours other than effective and idle that it
// has (low-util, setup, no data, rerun, trial), so that the line shows every part of its card-hours.
func otherClasses(ln BillLine) []lineClass {
	var out []lineClass
	for _, c := range []lineClass{{"bill.class.low_util", ln.LowUtilS}, {"bill.class.setup", ln.SetupS}, {"bill.class.no_data", ln.NoDataS},
		{"bill.class.rerun", ln.RerunS}, {"bill.class.trial", ln.TrialS}} {
		if c.s != 0 {
			out = append(out, c)
		}
	}
	return out
}

// pageURL is the bill's page with page n of the table whose page param names, the other
// table's page kept, scrolled to anchor.
func pageURL(d BillData, param string, n int, anchor string) templ.SafeURL {
	pages := map[string]int{"page": d.LinesPage.N, "idle_page": d.IdlePage.N}
	pages[param] = n
	q := url.Values{}
	for _, k := range []string{"page", "idle_page"} {
		if pages[k] > 1 {
			q.Set(k, strconv.Itoa(pages[k]))
		}
	}
	u := string(billURL(d.Project, d.Month))
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return templ.SafeURL(u + "#" + anchor)
}
