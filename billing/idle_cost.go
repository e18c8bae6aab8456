package billing

import "math/bits"

// IdleFen is the part of a bill's charges that paid for idle card time (闲置): for a line
// priced per card-hour (its own rate or overflow), its idle seconds at the line's rate; for
// a line priced per task or output unit, its amount's share of the line's held seconds that
// were idle; package lines charge nothing per hour and count nothing. Each line rounds half
// up once, as Amount does, so IdleFen never exceeds the lines' amounts. The bills page draws
// it as the idle series of the cost chart.
func IdleFen(b Bill) int64 { return classFen(b.Lines, func(l *Line) int64 { return l.Idle }) }

// RerunFen is the part of a bill's charges that paid for card time lost to reruns (重跑: the
// seconds of attempts rerun after their node was lost, from their last checkpoint), priced
// as IdleFen prices idle time. It is inside the total.
func RerunFen(b *Bill) int64 { return classFen(b.Lines, func(l *Line) int64 { return l.Rerun }) }

// TrialFen is the part of a bill's charges that paid for trials' runs (试跑: tasks tried at
// small sizes before their full run), priced as IdleFen prices idle time. It is inside the
// total.
func TrialFen(b *Bill) int64 { return classFen(b.Lines, func(l *Line) int64 { return l.Trial }) }

// classFen is the lines' charges for the seconds class gives of each: at the line's rate per
// card-hour, or its amount's share of its held seconds; rounded half up once per line.
func classFen(lines []Line, class func(*Line) int64) int64 {
	var fen int64
	for i := range lines {
		l := &lines[i]
		switch l.Pricing {
		case PricingCardHour, PricingOverflow:
			fen = AddFen(fen, Amount(class(l), l.RateFen))
		case PricingUnit, PricingTask:
			fen = AddFen(fen, shareOf(l.AmountFen, class(l), l.NominalS))
		}
	}
	return fen
}

// shareOf is round_half_up(amount × part / whole) in exact integers; 0 unless all three are
// positive, and amount when part ≥ whole.
func shareOf(amount, part, whole int64) int64 {
	if amount <= 0 || part <= 0 || whole <= 0 {
		return 0
	}
	if part >= whole {
		return amount
	}
	hi, lo := bits.Mul64(uint64(amount), uint64(part))
	lo, carry := bits.Add64(lo, uint64(whole)/2, 0)
	hi += carry
	q, _ := bits.Div64(hi, lo, uint64(whole)) // hi < whole: part < whole keeps the product under amount × whole
	return int64(q)
}
