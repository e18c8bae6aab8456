package handlers

import (
	"strings"

	"kashi/models"
)

// maxYuanDigits bounds the whole yuan of a typed amount (under 10^13 yuan, far inside int64 fen).
const maxYuanDigits = 13

// ParseYuan reads an amount typed in yuan — "12", "12.5", "1,234.56", "¥8", and with signed
// "-3.05" — as fen, in integers only. Anything else, or more than two decimals, is a
// FieldError naming field.
func ParseYuan(field, text string, signed bool) (int64, error) {
	s := strings.ReplaceAll(strings.TrimSpace(text), ",", "")
	s = strings.TrimPrefix(s, "¥")
	neg := false
	if signed && strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > maxYuanDigits || len(frac) > 2 || !digits(whole) || !digits(frac) {
		if signed {
			return 0, models.Invalid(field, "must be an amount in yuan with at most two decimals, e.g. 12.50 or -3")
		}
		return 0, models.Invalid(field, "must be an amount in yuan with at most two decimals, e.g. 12.50")
	}
	var fen int64
	for _, r := range whole {
		fen = fen*10 + int64(r-'0')
	}
	for i := range 2 {
		fen *= 10
		if i < len(frac) {
			fen += int64(frac[i] - '0')
		}
	}
	if neg {
		fen = -fen
	}
	return fen, nil
}

// digits is true when s is only ASCII digits (or empty).
func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
