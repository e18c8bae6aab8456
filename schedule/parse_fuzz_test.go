package schedule

import (
	"testing"
	"time"
)

// FuzzParse: any expression and zone either parse or are refused with an error, never a
// panic; a parsed schedule's next runs come after the start, strictly in order, in UTC, and
// on whole minutes.
func FuzzParse(f *testing.F) {
	for _, seed := range []struct{ expr, zone string }{
		{"0 22 * * 1-5", "Asia/Shanghai"}, {"*/15 * * * *", "UTC"}, {"@daily", "Europe/Berlin"},
		{"0 0 30 2 *", "UTC"}, {"30 2 * * 0", "America/New_York"}, {"@every 1h", "UTC"},
		{"TZ=UTC 0 1 * * *", "UTC"}, {"61 * * * *", "UTC"}, {"0 22 * * 1-5", "../etc/passwd"}, {"", ""},
	} {
		f.Add(seed.expr, seed.zone)
	}
	from := time.Date(2026, 3, 7, 12, 34, 56, 0, time.UTC)
	f.Fuzz(func(t *testing.T, expr, zone string) {
		s, err := Parse(expr, zone)
		if err != nil {
			return
		}
		prev := from
		for _, n := range s.Next(from, 5) {
			if !n.After(prev) || n.Location() != time.UTC || n.Second() != 0 || n.Nanosecond() != 0 {
				t.Fatalf("Parse(%q, %q).Next: %v after %v, want a later whole minute in UTC", expr, zone, n, prev)
			}
			prev = n
		}
	})
}
