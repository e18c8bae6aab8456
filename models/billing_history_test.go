package models_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestPriceAndPlanHistory(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		for _, pr := range []models.Price{
			{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1000},
			{Spec: "A100-80G", FromMonth: "2026-04", RateFen: 2000},
			{ProjectID: p.ID, Spec: "A100-80G", FromMonth: "2026-03", RateFen: 900},
		} {
			if err := s.SetPrice(ctx, pr, billT0); err != nil {
				t.Fatal(err)
			}
		}
		ps, err := s.PriceHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			Project int64
			Month   string
			Rate    int64
		}
		var got []row
		for _, r := range ps {
			got = append(got, row{r.ProjectID, r.FromMonth, r.RateFen})
		}
		want := []row{{0, "2026-04", 2000}, {0, "2026-01", 1000}, {p.ID, "2026-03", 900}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PriceHistory (-want +got)\n%s", d)
		}
		for _, m := range []string{"2026-01", "2026-05"} {
			if err := s.SetBillingPlan(ctx, models.BillingPlan{ProjectID: p.ID, FromMonth: m, Mode: models.BillPayAsYouGo}, billT0); err != nil {
				t.Fatal(err)
			}
		}
		plans, err := s.BillingPlanHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) != 2 || plans[0].FromMonth != "2026-05" {
			t.Errorf("BillingPlanHistory = %+v, want 2026-05 then 2026-01", plans)
		}
	})
}
