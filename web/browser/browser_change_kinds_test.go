package browser_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"kashi/models"
)

// shootChangeKinds raises the A100 list price from March and cuts vision's A100 quota in
// the demo's past, then shoots where each is listed (the price list, the projects page)
// with what it changed, and each change's page, in both languages on a desktop and a phone.
func shootChangeKinds(t *testing.T, b *browser, url string, store *models.Store) {
	t.Helper()
	ctx := context.Background()
	jan, err := store.Prices(ctx, "2026-03")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range jan {
		if p.ProjectID == 0 && p.Spec == "A100-80G" {
			p.ID, p.FromMonth, p.RateFen, p.OverflowRateFen = 0, "2026-03", p.RateFen+500, p.OverflowRateFen+500
			if err := store.SetPrice(ctx, p, time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var priceID int64
	hist, err := store.PriceHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range hist {
		if p.ProjectID == 0 && p.Spec == "A100-80G" && p.FromMonth == "2026-03" {
			priceID = p.ID
		}
	}
	vision, err := store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := store.Quotas(ctx, vision.ID)
	if err != nil || len(qs) == 0 {
		t.Fatalf("vision's quotas = %v, %v", qs, err)
	}
	q := qs[0]
	q.MaxGPUs, q.GuaranteedGPUs = 8, 4
	at := time.Date(2026, 2, 14, 16, 0, 0, 0, time.UTC)
	if _, err := store.SetQuota(ctx, "ana", q, at); err != nil {
		t.Fatal(err)
	}
	es, err := store.QuotaEdits(ctx, vision.ID, at, at.Add(time.Second))
	if err != nil || len(es) != 1 || priceID == 0 {
		t.Fatalf("the quota's change = %v, %v; the price %d", es, err, priceID)
	}
	shootPages(t, b, url, "change", []shotPage{
		{"prices", "/prices", `[data-testid=change-effect-text]`},
		{"price-page", "/prices/changes/" + strconv.FormatInt(priceID, 10), `[data-testid=change-counter-table]`},
		{"projects", "/projects", `[data-testid=change-effect-text]`},
		{"quota-page", "/projects/" + strconv.FormatInt(vision.ID, 10) + "/quota-changes/" + strconv.FormatInt(es[0].ID, 10), `[data-testid=change-counter-table]`},
	})
}
