package phrase

import "time"

// Figures written the same in every language, for pages and messages alike.

// Hours formats card-seconds as card-hours with two decimals, rounded half up, in integers
// only: 5400 → "1.50", 4500000 → "1,250.00". Downloads carry six decimals.
func Hours(s int64) string {
	b := make([]byte, 0, 24)
	if s < 0 {
		b = append(b, '-')
		s = -s
	}
	c := (s*100 + 1800) / 3600
	b = AppendInt(b, c/100)
	return string(append(b, '.', byte('0'+c/10%10), byte('0'+c%10)))
}

// Yuan formats fen as yuan with thousands separators and two decimals, in integers only:
// 123456 → "¥1,234.56", -1234 → "-¥12.34".
func Yuan(fen int64) string {
	b := make([]byte, 0, 24)
	u := uint64(fen)
	if fen < 0 {
		b = append(b, '-')
		u = uint64(-fen)
	}
	b = append(b, "¥"...)
	b = AppendInt(b, int64(u/100))
	return string(append(b, '.', byte('0'+u/10%10), byte('0'+u%10)))
}

// Share is part as a whole percentage of total, 0 when total is 0.
func Share(part, total int64) int {
	if total <= 0 {
		return 0
	}
	return int(part * 100 / total)
}

// DayRange is the first and the last day of the days from from up to to, such as a week's:
// "2026-03-02 – 2026-03-08".
func DayRange(from, to time.Time) string {
	return from.Format("2006-01-02") + " – " + to.Add(-time.Second).Format("2006-01-02")
}
