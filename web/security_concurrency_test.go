package web_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestConcurrentQuotaApprovals: twelve approvals of "+100 card-hours" decided at once add
// 1,200 card-hours, on SQLite and on Postgres.
func TestConcurrentQuotaApprovals(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		ctx := context.Background()
		s.Projects("vision")
		alice := s.Member("alice", "vision")
		p, _ := s.Store.ProjectByName(ctx, "vision")
		_, err := s.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, MaxGPUs: 8, BudgetCardHours: 1000,
			StartsAt: webtest.T0.Add(-time.Hour), EndsAt: webtest.T0.Add(90 * 24 * time.Hour)}, webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		const n = 12
		for range n {
			w := s.Post("/api/v1/requests", `{"project":"vision","kind":"budget","change":{"add_card_hours":100},"reason":"more"}`, webtest.Bearer(alice)...)
			if w.Code != http.StatusCreated {
				t.Fatalf("POST /api/v1/requests = %d %s", w.Code, w.Body)
			}
		}
		var wg sync.WaitGroup
		codes := make([]int, n)
		for i := range n {
			wg.Go(func() { codes[i] = s.Post(fmt.Sprintf("/api/v1/requests/%d/approve", i+1), "").Code })
		}
		wg.Wait()
		for i, c := range codes {
			if c != http.StatusOK {
				t.Errorf("approve %d = %d, want 200", i+1, c)
			}
		}
		qs, err := s.Store.Quotas(ctx, p.ID)
		if err != nil || len(qs) != 1 {
			t.Fatalf("Quotas = %v, %v", qs, err)
		}
		if got := qs[0].BudgetCardHours; got != 1000+n*100 {
			t.Errorf("budget after %d approvals of +100 = %d, want %d", n, got, 1000+n*100)
		}
	})
}
