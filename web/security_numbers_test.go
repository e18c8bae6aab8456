package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestNumbersHaveRanges: every number a user sends is checked against its documented range
// at the edge (422 naming the field); the largest allowed values are taken.
func TestNumbersHaveRanges(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	ctx := context.Background()
	p, _ := s.Store.ProjectByName(ctx, "vision")
	quota := func(budget string) string {
		return `{"max_gpus":8,"budget_card_hours":` + budget + `,"starts_at":"2026-01-01T00:00:00Z","ends_at":"2027-01-01T00:00:00Z"}`
	}
	tests := map[string]struct {
		path, body string
		status     int
		field      string
	}{
		"budget 3e15":         {"/api/v1/projects/1/quotas", quota("3000000000000000"), 422, "budget_card_hours"},
		"budget 9.2e18":       {"/api/v1/projects/1/quotas", quota("9200000000000000000"), 422, "budget_card_hours"},
		"budget at the limit": {"/api/v1/projects/1/quotas", quota("1000000000"), 200, ""},
		"max gpus huge": {"/api/v1/projects/1/quotas", `{"max_gpus":2000000000,"budget_card_hours":1,"starts_at":"2026-01-01T00:00:00Z","ends_at":"2027-01-01T00:00:00Z"}`,
			422, "max_gpus"},
		"overflow rate huge": {"/api/v1/projects/1/quotas", `{"max_gpus":1,"budget_card_hours":1,"overflow_rate_fen":9000000000000000000,"starts_at":"2026-01-01T00:00:00Z","ends_at":"2027-01-01T00:00:00Z"}`,
			422, "overflow_rate_fen"},
		"adjustment huge":            {"/api/v1/bills/vision/2026-03/adjustments", `{"amount_fen":9000000000000000000,"reason":"x"}`, 422, "amount_fen"},
		"adjustment hugely negative": {"/api/v1/bills/vision/2026-03/adjustments", `{"amount_fen":-9000000000000000000,"reason":"x"}`, 422, "amount_fen"},
		"adjustment at the limit":    {"/api/v1/bills/vision/2026-03/adjustments", `{"amount_fen":1000000000000,"reason":"x"}`, 201, ""},
		"price huge":                 {"/api/v1/prices", `{"spec":"A100-80G","from_month":"2026-01","rate_fen":9000000000000000000}`, 422, "rate_fen"},
		"price year 0":               {"/api/v1/prices", `{"spec":"A100-80G","from_month":"0000-01","rate_fen":1}`, 422, "from_month"},
		"package fee huge":           {"/api/v1/projects/1/plan", `{"from_month":"2026-01","mode":"reserved","package_spec":"A100-80G","package_cards":1,"package_fee_fen":9000000000000000000}`, 422, "package_fee_fen"},
		"size class price huge":      {"/api/v1/projects/1/plan", `{"from_month":"2026-01","mode":"per-task","size_classes":[{"name":"s","max_card_hours":0,"price_fen":9000000000000000000}]}`, 422, "size_classes[0].price_fen"},
	}
	for name, tc := range tests {
		w := s.Post(tc.path, tc.body)
		if tc.field == "" {
			if w.Code != tc.status {
				t.Errorf("%s: POST %s = %d %s, want %d", name, tc.path, w.Code, w.Body, tc.status)
			}
			continue
		}
		webtest.WantAPIError(t, name, w, tc.status, tc.field)
	}
	// A budget request may not take the budget past the limit, however large it is.
	member := s.Member("mia", "vision")
	if _, err := s.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, MaxGPUs: 8, BudgetCardHours: models.MaxCardHours - 5,
		StartsAt: webtest.T0.Add(-time.Hour), EndsAt: webtest.T0.Add(time.Hour)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for _, add := range []string{"6", "9200000000000000000"} {
		w := s.Post("/api/v1/requests", `{"project":"vision","kind":"budget","change":{"add_card_hours":`+add+`},"reason":"r"}`, webtest.Bearer(member)...)
		webtest.WantAPIError(t, "budget request +"+add, w, http.StatusUnprocessableEntity, "add_card_hours")
	}
}

// TestMonthYearsOutsideRange: months of years outside 2000–2999 are 422, not 500.
func TestMonthYearsOutsideRange(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	for _, path := range []string{"/api/v1/bills/0000-01", "/api/v1/bills/vision/0000-01", "/api/v1/bills/vision/3000-01?format=csv"} {
		webtest.WantAPIError(t, "GET "+path, s.Get(path), http.StatusUnprocessableEntity, "month")
	}
	if w := s.Get("/bills?month=0000-01"); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("GET /bills?month=0000-01 = %d, want 422", w.Code)
	}
}
