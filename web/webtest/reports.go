// The week the usage reports' tests read.

package webtest

// ReportWeek is the ISO week of the bill world's tasks: Monday 9 to Sunday 15 February 2026.
const ReportWeek = "2026-W07"
