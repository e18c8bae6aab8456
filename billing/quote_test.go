package billing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestQuoteMatchesBill quotes a task of 2 cards for 3.5 hours (7 card-hours), then bills the
// same task run as estimated: the quote is the bill's line, under every billing mode.
func TestQuoteMatchesBill(t *testing.T) {
	classes := `[{"name":"S","max_card_hours":5,"price_fen":1000},{"name":"M","max_card_hours":10,"price_fen":4000},{"name":"L","max_card_hours":0,"price_fen":90000}]`
	tests := map[string]struct {
		plan     *models.BillingPlan
		quota    *models.Quota
		spec     string
		overflow bool
		want     Quote
	}{
		"pay as you go, the project's own price": {
			spec: h800,
			want: Quote{Mode: models.BillPayAsYouGo, Line: Line{Spec: h800, Pricing: PricingCardHour, RateFen: 2800, AmountFen: 19600}},
		},
		"pay as you go, the list's price": {
			spec: a100,
			want: Quote{Mode: models.BillPayAsYouGo, Line: Line{Spec: a100, Pricing: PricingCardHour, RateFen: 1500, AmountFen: 10500}},
		},
		"overflow at the quota's rate": {
			spec: a100, overflow: true, quota: &models.Quota{ProjectID: 1, Spec: a100, OverflowRateFen: 3333},
			want: Quote{Mode: models.BillPayAsYouGo, Line: Line{Spec: a100, Pricing: PricingOverflow, RateFen: 3333, AmountFen: 23331}},
		},
		"reserved package covers its spec": {
			spec: a100, plan: &models.BillingPlan{ProjectID: 1, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 8, PackageFeeFen: 100000},
			want: Quote{Mode: models.BillReserved, Line: Line{Spec: a100, Pricing: PricingPackage}},
		},
		"per task by size class": {
			spec: a100, plan: &models.BillingPlan{ProjectID: 1, Mode: models.BillPerTask, SizeClasses: classes},
			want: Quote{Mode: models.BillPerTask, Line: Line{Spec: a100, Pricing: PricingTask, SizeClass: "M", RateFen: 4000, AmountFen: 4000}},
		},
		"no price": {
			spec: "RTX4090-24G",
			want: Quote{Mode: models.BillPayAsYouGo, Line: Line{Spec: "RTX4090-24G", Pricing: PricingCardHour}, MissingPrice: true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").
				price(0, a100, 1500, 2500).price(0, h800, 3000, 4000).price(1, h800, 2800, 3900).
				task(1, 1, "train", models.TaskSucceeded, 0, 4.5).
				hold(1, 1, 1, tc.spec, 1, 4.5, tc.overflow).hold(1, 1, 2, tc.spec, 1, 4.5, tc.overflow)
			if tc.plan != nil {
				f.plan(*tc.plan)
			}
			if tc.quota != nil {
				f.in.Quotas = append(f.in.Quotas, *tc.quota)
			}
			got, err := QuoteTask(QuoteInput{ProjectID: 1, Spec: tc.spec, CardSeconds: 7 * 3600, Overflow: tc.overflow,
				Prices: f.in.Prices, Plans: f.in.Plans, Quotas: f.in.Quotas})
			if err != nil {
				t.Fatal(err)
			}
			// The quote shows the price only: the classes of time are the bill's.
			got.Line.Breakdown, got.Line.NominalS, got.Line.EffectiveS = Breakdown{}, 0, 0
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("QuoteTask(...) mismatch (-want +got):\n%s", diff)
			}
			line := billOf(t, f.compute(t), "alpha").Lines[0]
			bill := Quote{Mode: got.Mode, MissingPrice: got.MissingPrice, Line: Line{Spec: line.Spec,
				Pricing: line.Pricing, SizeClass: line.SizeClass, RateFen: line.RateFen, AmountFen: line.AmountFen}}
			if diff := cmp.Diff(bill, got); diff != "" {
				t.Errorf("QuoteTask(...) differs from the bill's line (-bill +quote):\n%s", diff)
			}
		})
	}
}
