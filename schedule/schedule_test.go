package schedule

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// simulate ticks a clock every step from start to end, applying each plan as the loop does,
// and returns the runs submitted (local times in the schedule's zone, as text).
func simulate(t *testing.T, s Schedule, p Policy, zone string, start, end time.Time, step time.Duration) []string {
	t.Helper()
	loc, _ := time.LoadLocation(zone)
	var runs []string
	last := start
	for now := start; !now.After(end); now = now.Add(step) {
		plan := Decide(s, p, last, now, false)
		if plan.Action == ActionSubmit {
			runs = append(runs, plan.Planned.In(loc).Format("Mon 2006-01-02 15:04 MST"))
		}
		if plan.Action != ActionNone {
			last = plan.Through
		}
	}
	return runs
}

func mustParse(t *testing.T, expr, zone string) Schedule {
	t.Helper()
	s, err := Parse(expr, zone)
	if err != nil {
		t.Fatalf("Parse(%q, %q): %v", expr, zone, err)
	}
	return s
}

func TestWeekOfWeekdayNights(t *testing.T) {
	policy := Policy{Overlap: OverlapAllow, Deadline: time.Hour}
	tests := map[string]struct {
		zone       string
		start, end time.Time
		want       []string
	}{
		"Asia/Shanghai": {
			zone:  "Asia/Shanghai",
			start: time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC), // a Sunday
			end:   time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC),
			want: []string{"Mon 2025-03-03 22:00 CST", "Tue 2025-03-04 22:00 CST", "Wed 2025-03-05 22:00 CST",
				"Thu 2025-03-06 22:00 CST", "Fri 2025-03-07 22:00 CST"},
		},
		"America/New_York across the spring DST change": {
			zone:  "America/New_York",
			start: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC), // Wednesday; clocks go forward Sunday 9 March
			end:   time.Date(2025, 3, 12, 12, 0, 0, 0, time.UTC),
			want: []string{"Wed 2025-03-05 22:00 EST", "Thu 2025-03-06 22:00 EST", "Fri 2025-03-07 22:00 EST",
				"Mon 2025-03-10 22:00 EDT", "Tue 2025-03-11 22:00 EDT"},
		},
		"America/New_York across the autumn DST change": {
			zone:  "America/New_York",
			start: time.Date(2025, 10, 30, 12, 0, 0, 0, time.UTC), // Thursday; clocks go back Sunday 2 November
			end:   time.Date(2025, 11, 5, 12, 0, 0, 0, time.UTC),
			want: []string{"Thu 2025-10-30 22:00 EDT", "Fri 2025-10-31 22:00 EDT", "Mon 2025-11-03 22:00 EST",
				"Tue 2025-11-04 22:00 EST"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := mustParse(t, "0 22 * * 1-5", tc.zone)
			got := simulate(t, s, policy, tc.zone, tc.start, tc.end, time.Minute)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("runs of a week (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNextAcrossDST(t *testing.T) {
	s := mustParse(t, "0 22 * * 1-5", "America/New_York")
	got := s.Next(time.Date(2025, 3, 7, 12, 0, 0, 0, time.UTC), 2)
	want := []time.Time{time.Date(2025, 3, 8, 3, 0, 0, 0, time.UTC), time.Date(2025, 3, 11, 2, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Next (-want +got):\n%s", diff)
	}
}

func TestDowntime(t *testing.T) {
	s := mustParse(t, "0 22 * * 1-5", "Asia/Shanghai")
	sh, _ := time.LoadLocation("Asia/Shanghai")
	at := func(day, hour, min int) time.Time { return time.Date(2025, 3, day, hour, min, 0, 0, sh) }
	policy := Policy{Overlap: OverlapAllow, Deadline: time.Hour}
	tests := map[string]struct {
		last, now time.Time
		want      Plan
	}{
		"nothing due": {last: at(3, 12, 0), now: at(3, 21, 59), want: Plan{}},
		"on time": {last: at(3, 12, 0), now: at(3, 22, 0),
			want: Plan{Action: ActionSubmit, Planned: at(3, 22, 0).UTC(), Through: at(3, 22, 0).UTC()}},
		"down a day, back within the deadline: one run, the latest": {last: at(3, 21, 0), now: at(4, 22, 30),
			want: Plan{Action: ActionSubmit, Planned: at(4, 22, 0).UTC(), Through: at(4, 22, 0).UTC()}},
		"down a day, back past the deadline: none starts": {last: at(3, 21, 0), now: at(4, 23, 30),
			want: Plan{Action: ActionMissed, Planned: at(3, 22, 0).UTC(), Through: at(4, 23, 30).UTC()}},
		"down a week, back just at the deadline": {last: at(3, 21, 0), now: at(10, 23, 0),
			want: Plan{Action: ActionSubmit, Planned: at(10, 22, 0).UTC(), Through: at(10, 22, 0).UTC()}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(s, policy, tc.last.UTC(), tc.now.UTC(), false)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decide(last %v, now %v) (-want +got):\n%s", tc.last, tc.now, diff)
			}
		})
	}
}

func TestDowntimeStartsAtMostOneRunWithinItsDeadline(t *testing.T) {
	// Every 10 minutes, deadline 30 minutes: a server back after a day has three runs within
	// the deadline and starts only the latest.
	s := mustParse(t, "*/10 * * * *", "UTC")
	last := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	now := last.Add(24*time.Hour + 25*time.Minute)
	got := Decide(s, Policy{Overlap: OverlapAllow, Deadline: 30 * time.Minute}, last, now, false)
	want := Plan{Action: ActionSubmit, Planned: last.Add(24*time.Hour + 20*time.Minute), Dropped: 2,
		Through: last.Add(24*time.Hour + 20*time.Minute)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide (-want +got):\n%s", diff)
	}
	if again := Decide(s, Policy{Overlap: OverlapAllow, Deadline: 30 * time.Minute}, got.Through, now, false); again.Action != ActionNone {
		t.Errorf("Decide again at the same now = %+v, want nothing due", again)
	}
}

func TestOverlap(t *testing.T) {
	s := mustParse(t, "0 * * * *", "UTC")
	last := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	now := last.Add(time.Hour)
	tests := map[string]struct {
		overlap Overlap
		active  bool
		want    Action
	}{
		"allow, last active":   {OverlapAllow, true, ActionSubmit},
		"skip, last active":    {OverlapSkip, true, ActionSkip},
		"skip, last done":      {OverlapSkip, false, ActionSubmit},
		"replace, last active": {OverlapReplace, true, ActionReplace},
		"replace, last done":   {OverlapReplace, false, ActionSubmit},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(s, Policy{Overlap: tc.overlap, Deadline: time.Minute}, last, now, tc.active)
			if got.Action != tc.want || !got.Planned.Equal(now) {
				t.Errorf("Decide(%s, active=%v) = %+v, want %s at %v", tc.overlap, tc.active, got, tc.want, now)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := map[string]struct {
		expr, zone string
		ok         bool
	}{
		"weekday nights":   {"0 22 * * 1-5", "Asia/Shanghai", true},
		"descriptor":       {"@daily", "UTC", true},
		"bad field":        {"0 25 * * *", "UTC", false},
		"six fields":       {"0 0 22 * * 1-5", "UTC", false},
		"every":            {"@every 1h", "UTC", false},
		"zone in the expr": {"CRON_TZ=UTC 0 22 * * *", "UTC", false},
		"unknown zone":     {"0 22 * * *", "Mars/Olympus", false},
		"empty zone":       {"0 22 * * *", "", false},
		"local zone":       {"0 22 * * *", "Local", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tc.expr, tc.zone)
			if (err == nil) != tc.ok {
				t.Errorf("Parse(%q, %q) error = %v, want ok=%v", tc.expr, tc.zone, err, tc.ok)
			}
		})
	}
}
