package phrase

import (
	"testing"
	"time"
)

func TestHours(t *testing.T) {
	tests := map[int64]string{0: "0.00", 5400: "1.50", 17: "0.00", 18: "0.01", 4500000: "1,250.00", -5400: "-1.50"}
	for s, want := range tests {
		if got := Hours(s); got != want {
			t.Errorf("Hours(%d) = %q, want %q", s, got, want)
		}
	}
}

func TestShare(t *testing.T) {
	tests := map[[2]int64]int{{1, 2}: 50, {2, 3}: 66, {5, 0}: 0, {3, 2}: 150}
	for in, want := range tests {
		if got := Share(in[0], in[1]); got != want {
			t.Errorf("Share(%d, %d) = %d, want %d", in[0], in[1], got, want)
		}
	}
}

func TestDayRange(t *testing.T) {
	from := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	if got, want := DayRange(from, from.AddDate(0, 0, 7)), "2026-03-02 – 2026-03-08"; got != want {
		t.Errorf("DayRange = %q, want %q", got, want)
	}
}
