package main

import (
	"testing"
	"time"

	"kashi/notice"
	"kashi/schedule"
)

// TestDemoWeeklyWaitsForPast: a fresh demo's weekly report is not due until its past is
// filled — the weekly loop, which looks at once, used to find the week due, report it from a
// ledger the past was not in yet and claim it with no message — and is due then, for the
// week before the send, within the day it may be late.
func TestDemoWeeklyWaitsForPast(t *testing.T) {
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	cron, err := schedule.Parse("0 9 * * 1", loc.String())
	if err != nil {
		t.Fatal(err)
	}
	filled := make(chan struct{})
	pol := afterPast(notice.DefaultWeeklyPolicy(cron, loc), filled)
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, loc) // a Monday, an hour after the send
	if week := notice.DueWeek(pol, start); week != "" {
		t.Errorf("DueWeek(...) before the past is filled = %q, want none", week)
	}
	close(filled)
	if week := notice.DueWeek(pol, start.Add(time.Minute)); week != "2026-W48" {
		t.Errorf("DueWeek(...) once the past is filled = %q, want 2026-W48", week)
	}
}
