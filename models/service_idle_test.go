package models_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/serving"
)

// TestServiceIdleCardSeconds: a replica holds one card for 20 minutes and serves requests
// in one 5-minute bucket of the four; the three others (one with a scrape that answered no
// request) are its idle card-seconds.
func TestServiceIdleCardSeconds(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n1 := registerNode(t, s, "n1", "a100", 1)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		b0 := t0.Truncate(5 * time.Minute).Add(5 * time.Minute)
		svc, _, err := s.CreateTask(ctx, newService(1), models.DefaultTaskLimits, b0.Add(-time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		if err := s.PlaceTask(ctx, svc.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", b0); err != nil {
			t.Fatal(err)
		}
		end := b0.Add(20 * time.Minute)
		reports := []models.ServiceReport{
			{TaskID: svc.ID, TS: b0.Add(6 * time.Minute), Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b", Requests: 3, GenerationTokens: 90}},
			{TaskID: svc.ID, TS: b0.Add(11 * time.Minute), Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b"}},
		}
		if err := s.AddServiceReports(ctx, n1.ID, reports, end); err != nil {
			t.Fatal(err)
		}
		uses, err := s.ServiceUses(ctx, b0, end)
		if err != nil || len(uses) != 1 {
			t.Fatalf("ServiceUses = %+v, %v; want the service", uses, err)
		}
		if u := uses[0]; u.CardSeconds != 1200 || u.IdleCardSeconds != 900 {
			t.Errorf("ServiceUses = %v card-seconds, %v idle; want 1200, 900", u.CardSeconds, u.IdleCardSeconds)
		}
		// Its points over time: four of 5 minutes, each a card held throughout, the
		// requests in the second.
		var got []string
		for _, p := range uses[0].Points {
			got = append(got, fmt.Sprintf("%s %v %v", p.At.Sub(b0), p.CardSeconds, p.Served.Requests))
		}
		if want := []string{"0s 300 0", "5m0s 300 3", "10m0s 300 0", "15m0s 300 0"}; !slices.Equal(got, want) {
			t.Errorf("points = %q, want %q", got, want)
		}
	})
}
