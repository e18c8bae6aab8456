package billing

import (
	"testing"

	"kashi/models"
)

// TestOverflowRateOfQuota: overflow is priced at the project's quota of the spec, else its
// all-specs quota, when the quota sets a rate; else at the price list's overflow rate. Hours
// beyond a package stay at the price list's rate.
func TestOverflowRateOfQuota(t *testing.T) {
	tests := map[string]struct {
		quotas []models.Quota
		want   int64
	}{
		"no quota":            {nil, 2500},
		"quota without rate":  {[]models.Quota{{ProjectID: 1, Spec: a100}}, 2500},
		"all-specs quota":     {[]models.Quota{{ProjectID: 1, OverflowRateFen: 3000}}, 3000},
		"spec quota wins":     {[]models.Quota{{ProjectID: 1, OverflowRateFen: 3000}, {ProjectID: 1, Spec: a100, OverflowRateFen: 4200}}, 4200},
		"other spec's quota":  {[]models.Quota{{ProjectID: 1, Spec: h800, OverflowRateFen: 9999}}, 2500},
		"other project quota": {[]models.Quota{{ProjectID: 2, Spec: a100, OverflowRateFen: 9999}}, 2500},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, "2026-03", "UTC").project(1, "alpha").price(0, a100, 1500, 2500).
				task(1, 1, "burst", models.TaskSucceeded, 0, 2).hold(1, 1, 1, a100, 0, 2, true)
			f.in.Quotas = tc.quotas
			b := billOf(t, f.compute(t), "alpha")
			if l := b.Lines[0]; l.RateFen != tc.want || l.AmountFen != 2*tc.want {
				t.Errorf("overflow line at %d fen, %d fen; want %d, %d", l.RateFen, l.AmountFen, tc.want, 2*tc.want)
			}
		})
	}
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").price(0, a100, 1500, 2500).
		plan(models.BillingPlan{ProjectID: 1, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 1}).
		task(1, 1, "big", models.TaskSucceeded, 0, 400).hold(1, 1, 1, a100, 0, 400, false).hold(1, 1, 2, a100, 0, 400, false)
	f.in.Quotas = []models.Quota{{ProjectID: 1, Spec: a100, OverflowRateFen: 4200}}
	if it := item(billOf(t, f.compute(t), "alpha"), ItemPackageBeyond, a100); it.RateFen != 2500 {
		t.Errorf("hours beyond the package at %d fen, want the price list's 2500", it.RateFen)
	}
}
