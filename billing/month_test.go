package billing

import (
	"testing"
	"time"
)

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("LoadLocation(%q) = %v", name, err)
	}
	return loc
}

func TestParseMonth(t *testing.T) {
	for _, s := range []string{"2026-13", "2026-00", "2026-1", "26-01", "2026/01", "", "2026-01-01", "abcd-ef"} {
		if m, err := ParseMonth(s); err == nil {
			t.Errorf("ParseMonth(%q) = %v, want an error", s, m)
		}
	}
	m, err := ParseMonth("2026-03")
	if err != nil || m != (Month{2026, time.March}) || m.String() != "2026-03" {
		t.Errorf("ParseMonth(2026-03) = %v, %v", m, err)
	}
	if got := (Month{2026, time.December}).Next(); got != (Month{2027, time.January}) {
		t.Errorf("Next of 2026-12 = %v", got)
	}
}

func TestMonthBounds(t *testing.T) {
	tests := map[string]struct {
		zone     string
		month    Month
		from, to string
		hours    int64
	}{
		"shanghai":          {"Asia/Shanghai", Month{2026, time.March}, "2026-02-28T16:00:00Z", "2026-03-31T16:00:00Z", 744},
		"utc february":      {"UTC", Month{2028, time.February}, "2028-02-01T00:00:00Z", "2028-03-01T00:00:00Z", 696},
		"new york spring":   {"America/New_York", Month{2026, time.March}, "2026-03-01T05:00:00Z", "2026-04-01T04:00:00Z", 743},
		"new york autumn":   {"America/New_York", Month{2026, time.November}, "2026-11-01T04:00:00Z", "2026-12-01T05:00:00Z", 721},
		"kolkata half hour": {"Asia/Kolkata", Month{2026, time.January}, "2025-12-31T18:30:00Z", "2026-01-31T18:30:00Z", 744},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			from, to := tc.month.Bounds(mustLoc(t, tc.zone))
			if from.Format(time.RFC3339) != tc.from || to.Format(time.RFC3339) != tc.to {
				t.Errorf("Bounds = %s … %s, want %s … %s", from.Format(time.RFC3339), to.Format(time.RFC3339), tc.from, tc.to)
			}
			if h := int64(to.Sub(from) / time.Hour); h != tc.hours {
				t.Errorf("month has %d hours, want %d", h, tc.hours)
			}
		})
	}
}

// monthPart is the piece of an interval that falls in one month.
type monthPart struct {
	Month Month
	Span  Span
}

// splitMonths cuts [start, end) at local midnight of each 1st in loc, in order. An empty
// interval gives nothing. The conservation test counts each month's seconds with it, apart
// from the code that bills them.
func splitMonths(start, end time.Time, loc *time.Location) []monthPart {
	var out []monthPart
	s, e := start.Unix(), end.Unix()
	for m := MonthOf(start, loc); s < e; m = m.Next() {
		_, to := m.Bounds(loc)
		cut := min(e, to.Unix())
		out = append(out, monthPart{m, Span{s, cut}})
		s = cut
	}
	return out
}

func TestSplitMonths(t *testing.T) {
	sh := mustLoc(t, "Asia/Shanghai")
	start := time.Date(2026, 1, 31, 15, 0, 0, 0, time.UTC) // 23:00 local, Jan 31
	end := time.Date(2026, 3, 1, 1, 0, 0, 0, time.UTC)     // 09:00 local, Mar 1
	parts := splitMonths(start, end, sh)
	want := []struct {
		m    string
		secs int64
	}{{"2026-01", 3600}, {"2026-02", 28 * 86400}, {"2026-03", 9 * 3600}}
	if len(parts) != len(want) {
		t.Fatalf("splitMonths = %v, want %d parts", parts, len(want))
	}
	var sum int64
	for i, p := range parts {
		if p.Month.String() != want[i].m || p.Span.Seconds() != want[i].secs {
			t.Errorf("part %d = %s %d s, want %s %d s", i, p.Month, p.Span.Seconds(), want[i].m, want[i].secs)
		}
		sum += p.Span.Seconds()
	}
	if sum != int64(end.Sub(start)/time.Second) {
		t.Errorf("parts add up to %d s, want %d", sum, int64(end.Sub(start)/time.Second))
	}
	if got := splitMonths(end, end, sh); len(got) != 0 {
		t.Errorf("splitMonths(empty) = %v", got)
	}
}
