package models

// Ranges of the numbers users send. Each is checked where it enters the store, and a value
// outside is a FieldError naming its field (422 at the API). They are far above any real
// installation and far enough below int64's range that card-seconds (hours × 3600) and money
// sums cannot wrap. SECURITY.md lists them.
const (
	// MaxCardHours bounds a budget and a budget request: 10⁹ card-hours (≈ 114,000 GPU-years).
	MaxCardHours = 1_000_000_000
	// MaxGPUCount bounds GPU limits, guarantees and package cards.
	MaxGPUCount = 100_000
	// MaxRateFen bounds a rate per card-hour or per unit: 10⁹ fen (10 million yuan).
	MaxRateFen = 1_000_000_000
	// MaxAmountFen bounds a fee, a price and the size of an adjustment: 10¹² fen (10 billion
	// yuan).
	MaxAmountFen = 1_000_000_000_000
	// MaxOutputUnits bounds a task's reported output: 10⁹ units (count tokens in thousands),
	// so a per-unit line (≤ MaxRateFen each) stays far inside int64. api.MaxOutputUnits is the
	// same bound for the agent.
	MaxOutputUnits = 1_000_000_000
)

// checkRange returns a FieldError unless lo ≤ v ≤ hi.
func checkRange(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fieldErr(field, "must be between %d and %d, got %d", lo, hi, v)
	}
	return nil
}
