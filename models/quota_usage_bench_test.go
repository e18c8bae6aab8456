package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
)

// BenchmarkUsageSeconds measures the month's use of quotas as every scheduling pass reads
// it: 4,096 GPUs (benchFleet, 512 of them held), 300,000 allocations that ended over the
// first three weeks of the month (20,000 in CI's short run), a pass a second after the
// first.
func BenchmarkUsageSeconds(b *testing.B) {
	s := benchFleet(b)
	ctx := context.Background()
	fleet, err := s.Nodes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var held []models.Allocation
	if err := models.DB(s).Find(&held).Error; err != nil {
		b.Fatal(err)
	}
	n := 300_000
	if testing.Short() {
		n = 20_000
	}
	since := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := since.Add(21 * 24 * time.Hour)
	rows := make([]models.Allocation, 0, n)
	for i := range n {
		node := fleet[i%len(fleet)]
		a := held[i%len(held)]
		start := since.Add(time.Duration(i) * (20 * 24 * time.Hour) / time.Duration(n))
		end := start.Add(time.Duration(1+i%7) * time.Hour)
		rows = append(rows, models.Allocation{TaskID: a.TaskID, GPUID: node.GPUs[1+i%7].ID, NodeID: node.ID, ProjectID: a.ProjectID,
			StartedAt: start, EndedAt: &end})
	}
	if err := models.DB(s).CreateInBatches(rows, 500).Error; err != nil {
		b.Fatal(err)
	}
	// The first read sums the settled month (once a day, and at a start); the passes after it
	// read what is open, recent or new.
	if _, err := s.UsageSeconds(ctx, since, now); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		now = now.Add(time.Second)
		if _, err := s.UsageSeconds(ctx, since, now); err != nil {
			b.Fatal(err)
		}
	}
}
