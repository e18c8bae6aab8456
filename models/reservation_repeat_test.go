package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestReservationWindowsRepeat: a daily or weekly repeat yields a window on each day of its
// rule up to its end date, at the first window's wall-clock time in its zone (weekdays are
// the zone's, and a daylight-saving change keeps the local hour).
func TestReservationWindowsRepeat(t *testing.T) {
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	newYork, _ := time.LoadLocation("America/New_York")
	at := func(loc *time.Location, d, h int) *time.Time { x := time.Date(2026, 3, d, h, 0, 0, 0, loc); return &x }
	starts := func(c models.QuotaChange, loc *time.Location) []string {
		var out []string
		for _, w := range c.Windows() {
			out = append(out, w.Begins.In(loc).Format("Mon 01-02 15:04")+"+"+w.Ends.Sub(w.Begins).String())
		}
		return out
	}
	for name, tc := range map[string]struct {
		c    models.QuotaChange
		loc  *time.Location
		want []string
	}{
		"once": {models.QuotaChange{ReserveBegins: at(shanghai, 3, 9), ReserveEnds: at(shanghai, 3, 18)}, shanghai,
			[]string{"Tue 03-03 09:00+9h0m0s"}},
		"weeks, the older form": {models.QuotaChange{ReserveBegins: at(shanghai, 3, 9), ReserveEnds: at(shanghai, 3, 18), ReserveWeeks: 2, ReserveZone: "Asia/Shanghai"}, shanghai,
			[]string{"Tue 03-03 09:00+9h0m0s", "Tue 03-10 09:00+9h0m0s", "Tue 03-17 09:00+9h0m0s"}},
		"daily to the end date": {models.QuotaChange{ReserveBegins: at(shanghai, 3, 9), ReserveEnds: at(shanghai, 3, 18), ReserveRepeat: "daily",
			ReserveUntil: at(shanghai, 6, 9), ReserveZone: "Asia/Shanghai"}, shanghai,
			[]string{"Tue 03-03 09:00+9h0m0s", "Wed 03-04 09:00+9h0m0s", "Thu 03-05 09:00+9h0m0s", "Fri 03-06 09:00+9h0m0s"}},
		// 07:00 in Shanghai is the day before in UTC: the weekdays are Shanghai's.
		"weekdays in the zone": {models.QuotaChange{ReserveBegins: at(shanghai, 3, 7), ReserveEnds: at(shanghai, 3, 12), ReserveRepeat: "weekly",
			ReserveWeekdays: []string{"mon", "Thu"}, ReserveUntil: at(shanghai, 12, 23), ReserveZone: "Asia/Shanghai"}, shanghai,
			[]string{"Thu 03-05 07:00+5h0m0s", "Mon 03-09 07:00+5h0m0s", "Thu 03-12 07:00+5h0m0s"}},
		// New York moves its clocks on 8 March 2026: 09:00 stays 09:00.
		"across daylight saving": {models.QuotaChange{ReserveBegins: at(newYork, 7, 9), ReserveEnds: at(newYork, 7, 17), ReserveRepeat: "daily",
			ReserveUntil: at(newYork, 9, 9), ReserveZone: "America/New_York"}, newYork,
			[]string{"Sat 03-07 09:00+8h0m0s", "Sun 03-08 09:00+8h0m0s", "Mon 03-09 09:00+8h0m0s"}},
	} {
		if got := starts(tc.c, tc.loc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: windows %q, want %q", name, got, tc.want)
		}
	}
}

// TestReservationRepeatBooksEachWindow: approving a weekly repeat books every window in
// the approval's transaction, each with the request's id; the cost counts them all.
func TestReservationRepeatBooksEachWindow(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		w := newQuotaWorld(t, s)
		begins, ends, until := t0.Add(24*time.Hour), t0.Add(33*time.Hour), t0.Add(26*7*24*time.Hour)
		c := models.QuotaChange{ReserveGPUs: 2, ReserveBegins: &begins, ReserveEnds: &ends, ReserveRepeat: models.RepeatWeekly,
			ReserveWeekdays: []string{"tue", "fri"}, ReserveUntil: &until, ReserveZone: "UTC"}
		if got, want := c.ReservedCardSeconds(), int64(52*2*9*3600); got != want {
			t.Errorf("ReservedCardSeconds = %d, want %d (52 windows)", got, want)
		}
		req, err := s.CreateQuotaRequest(ctx, w.member, w.project.ID, "A100-80G", models.RequestReservation, c, "twice a week", t0)
		if err != nil {
			t.Fatalf("CreateQuotaRequest = %v", err)
		}
		if _, err := s.DecideQuotaRequest(ctx, w.lead, req.ID, true, "ok", t0.Add(time.Hour)); err != nil {
			t.Fatalf("DecideQuotaRequest = %v", err)
		}
		rs, err := s.Reservations(ctx, t0, until.Add(24*time.Hour))
		if err != nil || len(rs) != 52 {
			t.Fatalf("Reservations = %d, %v; want 52 windows", len(rs), err)
		}
		if rs[1].Occurrence != 2 || rs[1].Occurrences != 52 {
			t.Errorf("the second window is %d of %d, want 2 of 52", rs[1].Occurrence, rs[1].Occurrences)
		}
		for i, r := range rs {
			if wd := r.StartsAt.Weekday(); r.RequestID != req.ID || wd != time.Tuesday && wd != time.Friday || r.EndsAt.Sub(r.StartsAt) != 9*time.Hour {
				t.Fatalf("window %d = %+v", i, r)
			}
		}
	})
}
