package replay

import (
	"math"
	"strconv"
	"time"
)

// maxSeconds bounds every time and duration in a trace (about 126 years): beyond it a
// value is unparsable, so that sums and time.Duration conversions cannot overflow.
const maxSeconds = 4_000_000_000

// parseTime reads a time or duration in seconds: an integer, a decimal (rounded to the
// nearest second, halves away from zero) or an RFC 3339 timestamp (Unix seconds).
func parseTime(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	if v, ok := parseInt(b); ok {
		return v, true
	}
	s := string(b)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.Abs(f) > maxSeconds {
			return 0, false
		}
		return int64(math.Round(f)), true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		u := t.Unix()
		if u > maxSeconds || u < -maxSeconds {
			return 0, false
		}
		if t.Nanosecond() >= 5e8 {
			u++
		}
		return u, true
	}
	return 0, false
}

// parseInt reads a decimal integer within ±maxSeconds.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 12 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg || b[0] == '+' {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if v > maxSeconds {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
