package browser_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"kashi/models"
)

// shootChangeKinds raises the A100 list price from March, cuts vision's A100 quota in the
// demo's past and has vision's lead approve a member's request to raise it again, then
// shoots where each is listed (the price list, the projects page, the approvals' history)
// with what it changed, and each change's page, the demo's own idle-reclaim change of
// vision's among them, in both languages on a desktop and a phone.
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
	users := map[string]models.User{}
	for _, name := range []string{"member", "lead"} {
		if users[name], err = store.UserByName(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	// Two weeks after the cut, not to cut its period short.
	later := at.AddDate(0, 0, 14)
	req, err := store.CreateQuotaRequest(ctx, users["member"], vision.ID, q.Spec, models.RequestLimit, models.QuotaChange{MaxGPUs: 12},
		"the ablations", later)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.DecideQuotaRequest(ctx, users["lead"], req.ID, true, "", later.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	rs, err := store.ReclaimEdits(ctx, vision.ID, time.Time{}, time.Time{})
	if err != nil || len(rs) != 1 {
		t.Fatalf("vision's reclaim changes = %v, %v; want the demo's", rs, err)
	}
	shootPages(t, b, url, "change", []shotPage{
		{"reclaim-page", "/projects/" + strconv.FormatInt(vision.ID, 10) + "/reclaim-changes/" + strconv.FormatInt(rs[0].ID, 10), `[data-testid=change-stops]`},
		{"approvals", "/approvals", `[data-testid=request-change]`},
		{"prices", "/prices", `[data-testid=change-effect-text]`},
		{"price-page", "/prices/changes/" + strconv.FormatInt(priceID, 10), `[data-testid=change-counter-table]`},
		{"projects", "/projects", `[data-testid=change-effect-text]`},
		{"quota-page", "/projects/" + strconv.FormatInt(vision.ID, 10) + "/quota-changes/" + strconv.FormatInt(es[0].ID, 10), `[data-testid=change-counter-table]`},
	})
}
