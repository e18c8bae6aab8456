package views

import (
	"time"

	"kashi/phrase"
)

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
	b = phrase.AppendInt(b, int64(u/100))
	return string(append(b, '.', byte('0'+u/10%10), byte('0'+u%10)))
}

// BillStamp is a time on bill pages, in the zone the time carries.
func BillStamp(t time.Time) string { return t.Format("2006-01-02 15:04 MST") }
