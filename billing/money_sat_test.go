package billing_test

import (
	"math"
	"testing"

	"kashi/billing"
)

func TestAddFenSaturates(t *testing.T) {
	tests := map[string]struct{ a, b, want int64 }{
		"plain":           {100, -30, 70},
		"at the top":      {math.MaxInt64 - 1, 1, math.MaxInt64},
		"past the top":    {math.MaxInt64, math.MaxInt64, math.MaxInt64},
		"past the bottom": {math.MinInt64, -1, math.MinInt64},
		"two huge":        {math.MaxInt64 - 10, math.MaxInt64 - 10, math.MaxInt64},
		"mixed signs":     {math.MaxInt64, math.MinInt64, -1},
	}
	for name, tc := range tests {
		if got := billing.AddFen(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: AddFen(%d, %d) = %d, want %d", name, tc.a, tc.b, got, tc.want)
		}
	}
}
