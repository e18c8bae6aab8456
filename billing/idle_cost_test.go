package billing

import (
	"math"
	"testing"
)

func TestIdleFen(t *testing.T) {
	tests := map[string]struct {
		lines []Line
		want  int64
	}{
		"no lines": {nil, 0},
		"card-hour: idle hours at the rate": {[]Line{{Pricing: PricingCardHour, Breakdown: Breakdown{Idle: 5400}, NominalS: 7200,
			RateFen: 1500, AmountFen: 3000}}, 2250},
		"overflow at its own rate": {[]Line{{Pricing: PricingOverflow, Breakdown: Breakdown{Idle: 3600}, NominalS: 3600,
			RateFen: 2500, AmountFen: 2500}}, 2500},
		"package lines pay nothing per hour": {[]Line{{Pricing: PricingPackage, Breakdown: Breakdown{Idle: 3600}, NominalS: 3600}}, 0},
		"per unit: the idle share of the amount, half up": {[]Line{{Pricing: PricingUnit, Breakdown: Breakdown{Idle: 1},
			NominalS: 3, AmountFen: 100}}, 33},
		"per task: two thirds rounds up": {[]Line{{Pricing: PricingTask, Breakdown: Breakdown{Idle: 2}, NominalS: 3,
			AmountFen: 100}}, 67},
		"per task without card time": {[]Line{{Pricing: PricingTask, AmountFen: 100}}, 0},
		"lines add up": {[]Line{
			{Pricing: PricingCardHour, Breakdown: Breakdown{Idle: 3600}, NominalS: 3600, RateFen: 1000, AmountFen: 1000},
			{Pricing: PricingUnit, Breakdown: Breakdown{Idle: 1800}, NominalS: 3600, AmountFen: 501}}, 1251},
		"huge amounts do not overflow": {[]Line{{Pricing: PricingTask, Breakdown: Breakdown{Idle: math.MaxInt64 - 1},
			NominalS: math.MaxInt64, AmountFen: math.MaxInt64}}, math.MaxInt64 - 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := IdleFen(Bill{Lines: tc.lines}); got != tc.want {
				t.Errorf("IdleFen = %d, want %d", got, tc.want)
			}
		})
	}
}
