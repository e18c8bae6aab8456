package models

import (
	"testing"
	"time"
)

func TestParseDBTime(t *testing.T) {
	want := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC).Unix()
	for _, s := range []string{
		"2026-03-01 08:00:00+00:00",        // SQLite, as the driver stores UTC
		"2026-03-01 08:00:00+00",           // Postgres, session in UTC
		"2026-03-01 16:00:00+08",           // Postgres, session in Asia/Shanghai
		"2026-03-01 03:00:00-05",           // Postgres, session in New York
		"2026-03-01 13:45:00+05:45",        // Kathmandu
		"2026-03-01T08:00:00Z",             // RFC 3339
		"2026-03-01 08:00:00.000000+00:00", // a fraction
		"2026-03-01 08:00:00",              // no zone: UTC
	} {
		got, err := parseDBTime([]byte(s))
		if err != nil || got != want {
			t.Errorf("parseDBTime(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2026-03-01", "2026/03/01 08:00:00", "2026-03-01 08:00:00 UTC", "2026-03-01 08:00:00+0x"} {
		if got, err := parseDBTime([]byte(s)); err == nil {
			t.Errorf("parseDBTime(%q) = %d, want an error", s, got)
		}
	}
}
