package billing

import (
	"math/bits"
	"strconv"
)

// Amount is the charge in fen for seconds of card time at rateFen fen per card-hour:
//
//	amount = round_half_up(seconds × rateFen / 3600)
//
// computed exactly in integers (a 128-bit product, so no overflow), once per bill line, from
// the line's total seconds. Totals are sums of rounded lines, never re-rounded. Seconds and
// rate are never negative; amounts that do not fit int64 saturate.
func Amount(seconds, rateFen int64) int64 { return amountPer(seconds, rateFen, 3600) }

// AmountPct is Amount charged at pct percent of the rate, rounded once:
//
//	amount = round_half_up(seconds × rateFen × pct / 360000)
func AmountPct(seconds, rateFen int64, pct int) int64 {
	return amountPer(seconds, mulSat(rateFen, int64(pct)), 360000)
}

// amountPer is round_half_up(seconds × mul / div), exactly, saturating.
func amountPer(seconds, mul int64, div uint64) int64 {
	if seconds <= 0 || mul <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(seconds), uint64(mul))
	lo, carry := bits.Add64(lo, div/2, 0)
	hi += carry
	if hi >= div {
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, div)
	if q > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(q)
}

// AppendFen appends fen as yuan with two decimals and no grouping: -1234 → "-12.34".
func AppendFen(b []byte, fen int64) []byte {
	u := uint64(fen)
	if fen < 0 {
		b = append(b, '-')
		u = uint64(-fen)
	}
	b = strconv.AppendUint(b, u/100, 10)
	return append(b, '.', byte('0'+u/10%10), byte('0'+u%10))
}

// FormatFen is AppendFen as a string.
func FormatFen(fen int64) string { return string(AppendFen(nil, fen)) }

// AppendHours appends seconds as hours with six decimals, rounded half up: 3601 →
// "1.000278". Six decimals tell whole seconds apart, so the seconds can be read back.
func AppendHours(b []byte, seconds int64) []byte {
	if seconds < 0 {
		b = append(b, '-')
		seconds = -seconds
	}
	micro := (uint64(seconds)*2500 + 4) / 9 // seconds × 10⁶ / 3600, half up
	b = strconv.AppendUint(b, micro/1e6, 10)
	b = append(b, '.')
	frac := micro % 1e6
	for d := uint64(1e5); d > 0; d /= 10 {
		b = append(b, byte('0'+frac/d%10))
	}
	return b
}

// FormatHours is AppendHours as a string.
func FormatHours(seconds int64) string { return string(AppendHours(nil, seconds)) }

// Hours is seconds as a float64 number of hours, for spreadsheet cells and charts only;
// sums and money never use it.
func Hours(seconds int64) float64 { return float64(seconds) / 3600 }

// Yuan is fen as a float64 number of yuan, for spreadsheet cells only: the division is
// correctly rounded, so the cell shows the exact two-decimal figure.
func Yuan(fen int64) float64 { return float64(fen) / 100 }

// AddFen is a + b fen, saturating at int64's bounds instead of wrapping: a bill's sums of amounts
// and adjustments never turn a huge charge into a small or negative one.
func AddFen(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return 1<<63 - 1
	case a < 0 && b < 0 && s >= 0:
		return -1 << 63
	}
	return s
}
