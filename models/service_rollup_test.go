package models_test

import (
	"context"
	"math"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/serving"
)

func hist(t *testing.T, bounds []float64, counts []uint64, sum float64) *serving.Histogram {
	t.Helper()
	h, err := serving.NewHistogram(bounds, counts, sum)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestServiceReportsRollUpExactly: two replicas on two nodes report their scrapes; the
// service's bucket holds their sum, histograms added bucket by bucket, and the percentile read
// from it is the hand-worked one. A report sent again, one from a node the replica is not on,
// and a failed scrape add nothing.
func TestServiceReportsRollUpExactly(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n1 := registerNode(t, s, "n1", "a100", 1)
		n2 := registerNode(t, s, "n2", "a100", 1)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		first, _, err := s.CreateTask(ctx, newService(2), models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		replicaOn := map[int64]int64{}
		for i, nd := range nodes {
			id := first.ID + int64(i)
			if err := s.PlaceTask(ctx, id, []int64{nd.GPUs[0].ID}, false, "placed", t0); err != nil {
				t.Fatal(err)
			}
			replicaOn[nd.ID] = id
		}
		at := t0.Truncate(5 * time.Minute).Add(time.Minute)
		bounds := []float64{0.1, 0.5, 1}
		a := models.ServiceReport{TaskID: replicaOn[n1.ID], TS: at, Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b",
			Requests: 8, PromptTokens: 800, GenerationTokens: 1600, TTFT: hist(t, bounds, []uint64{2, 6, 8, 8}, 2)}}
		b := models.ServiceReport{TaskID: replicaOn[n2.ID], TS: at.Add(time.Second), Restarted: true, Served: serving.Snapshot{Server: serving.VLLM,
			Model: "qwen2.5-7b", Requests: 4, PromptTokens: 400, GenerationTokens: 400, TTFT: hist(t, bounds, []uint64{1, 3, 4, 4}, 1)}}
		for _, step := range []struct {
			node int64
			r    models.ServiceReport
		}{{n1.ID, a}, {n2.ID, b}, {n1.ID, a}, {n2.ID, a}, {n1.ID, models.ServiceReport{TaskID: a.TaskID, TS: at.Add(time.Minute), Error: "connection refused"}}} {
			if err := s.AddServiceReports(ctx, step.node, []models.ServiceReport{step.r}, at.Add(2*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := s.ServiceRollups(ctx, []int64{first.ID}, at.Add(-time.Hour), at.Add(time.Hour))
		if err != nil || len(rows) != 1 {
			t.Fatalf("ServiceRollups = %+v, %v; want one bucket", rows, err)
		}
		got, err := rows[0].Served()
		if err != nil {
			t.Fatal(err)
		}
		if got.Requests != 12 || got.PromptTokens != 1200 || got.GenerationTokens != 2000 || rows[0].Restarts != 1 || rows[0].Bucket != at.Truncate(5*time.Minute).Unix() {
			t.Errorf("rollup = %+v, want 12 requests, 1200 + 2000 tokens, 1 restart in the bucket of %s", rows[0], at)
		}
		// Merged TTFT counts 3, 9, 12, 12: the median's rank 6 falls in (0.1, 0.5] after 3,
		// with 6 there: 0.1 + 0.4 × 3/6 = 0.3; p99's rank 11.88 in (0.5, 1] after 9, with 3
		// there: 0.5 + 0.5 × 2.88/3 = 0.98.
		for q, want := range map[float64]float64{0.5: 0.3, 0.99: 0.98} {
			if v, ok := got.TTFT.Quantile(q); !ok || math.Abs(v-want) > 1e-9 {
				t.Errorf("TTFT p%v = %v, %v; want %v", q*100, v, ok, want)
			}
		}
		uses, err := s.ServiceUses(ctx, at.Add(-time.Hour), at.Add(2*time.Minute))
		if err != nil || len(uses) != 1 {
			t.Fatalf("ServiceUses = %+v, %v; want the service", uses, err)
		}
		if u := uses[0]; u.ServiceID != first.ID || u.Live != 2 || u.GPUs != 2 || u.Failing != 1 || u.FailingError != "connection refused" ||
			u.Served.Requests != 12 || u.Spec != "A100-80G" || u.CardSeconds <= 0 {
			t.Errorf("ServiceUses = %+v; want 2 live replicas on 2 A100-80G cards, one failing, 12 requests", u)
		}
		r, err := s.TaskByID(ctx, a.TaskID)
		if err != nil || r.ScrapeError != "connection refused" || r.ScrapedAt == nil || !r.ScrapedAt.Equal(at.Add(time.Minute)) {
			t.Errorf("replica = scraped %v error %q, %v; want the failed scrape's time and error", r.ScrapedAt, r.ScrapeError, err)
		}
	})
}
