package billing

import (
	"math"
	"testing"
)

func TestAmountRoundsHalfUpOnce(t *testing.T) {
	tests := map[string]struct {
		secs, rate, want int64
	}{
		"one hour":                         {3600, 1234, 1234},
		"half fen rounds up":               {1800, 1, 1},
		"under half down":                  {1799, 1, 0},
		"third of an hour":                 {1200, 1000, 333},
		"two thirds":                       {2400, 1000, 667},
		"zero rate":                        {3600, 0, 0},
		"zero seconds":                     {0, 5000, 0},
		"a year of 1000 cards at 100 yuan": {1000 * 365 * 86400, 10000, 87_600_000_000},
		"no overflow":                      {math.MaxInt64 / 2, 3600, math.MaxInt64 / 2},
		"saturates":                        {math.MaxInt64, math.MaxInt64, math.MaxInt64},
	}
	for name, tc := range tests {
		if got := Amount(tc.secs, tc.rate); got != tc.want {
			t.Errorf("%s: Amount(%d, %d) = %d, want %d", name, tc.secs, tc.rate, got, tc.want)
		}
	}
}

func TestFormats(t *testing.T) {
	fens := map[int64]string{0: "0.00", 5: "0.05", 123456: "1234.56", -1234: "-12.34", -5: "-0.05"}
	for f, want := range fens {
		if got := FormatFen(f); got != want {
			t.Errorf("FormatFen(%d) = %q, want %q", f, got, want)
		}
	}
	hours := map[int64]string{0: "0.000000", 3600: "1.000000", 3601: "1.000278", 1: "0.000278", 29107658: "8085.460556"}
	for s, want := range hours {
		if got := FormatHours(s); got != want {
			t.Errorf("FormatHours(%d) = %q, want %q", s, got, want)
		}
	}
	// Six decimals tell every second apart: the seconds read back.
	for s := int64(0); s < 100000; s += 7 {
		h := FormatHours(s)
		var whole, frac int64
		i := 0
		for ; h[i] != '.'; i++ {
			whole = whole*10 + int64(h[i]-'0')
		}
		for _, c := range h[i+1:] {
			frac = frac*10 + int64(c-'0')
		}
		if back := (whole*1_000_000 + frac) * 3600; (back+500_000)/1_000_000 != s {
			t.Fatalf("FormatHours(%d) = %s does not read back", s, h)
		}
	}
}
