package models_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// The quotas' use read through the kept sums of settled allocations is the use summed from
// every allocation, call after call, on both databases, while allocations open, end (some
// with their end set in the past, as a lost node's are: in the demo's fast clock, hours
// back), and arrive already closed (an import), as the month runs on and into the next.
func TestUsageSecondsKeptEqualsEveryAllocation(t *testing.T) {
	for _, late := range []time.Duration{90 * time.Minute, 7 * time.Hour} {
		t.Run(late.String(), func(t *testing.T) { usageKeptEqualsEveryAllocation(t, late) })
	}
}

// usageKeptEqualsEveryAllocation is the test with ends written up to late after the time
// they record, as the store is told (SetLateEnds: a lost node's, NodeLostAfter back; 90
// minutes is within the least settle, two hours).
func usageKeptEqualsEveryAllocation(t *testing.T, late time.Duration) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if late > 90*time.Minute {
			s.SetLateEnds(late)
		}
		rng := rand.New(rand.NewPCG(7, 61))
		start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		nodes := []models.NodeGPUs{
			modelstest.Node("a").A100s(8).Register(t, s, start),
			modelstest.Node("r").Pool("rtx").Cards("NVIDIA GeForce RTX 4090", 24564, 8, func(i int) string { return "r-g" + string(rune('0'+i)) }).Register(t, s, start),
		}
		var gpus []models.GPU
		for _, n := range nodes {
			gpus = append(gpus, n.GPUs...)
		}
		tasks := []models.Task{
			modelstest.Task("vision", "v").Create(t, s, start),
			modelstest.Task("speech", "s").Create(t, s, start),
			modelstest.Task("nlp", "n").Create(t, s, start),
		}
		db := models.DB(s)
		open := map[int64]int64{} // GPU id: its open allocation's id
		now := start.Add(-20 * 24 * time.Hour)
		for step := range 160 {
			now = now.Add(time.Duration(rng.IntN(int(9 * time.Hour))))
			for range 1 + rng.IntN(6) {
				g := gpus[rng.IntN(len(gpus))]
				task := tasks[rng.IntN(len(tasks))]
				switch id, held := open[g.ID]; {
				case held: // it ends, now or up to late ago
					end := now.Add(-time.Duration(rng.IntN(int(late))))
					if err := db.Exec("UPDATE allocations SET ended_at = ? WHERE id = ? AND started_at < ?", end, id, end).Error; err != nil {
						t.Fatal(err)
					}
					if err := db.Exec("UPDATE allocations SET ended_at = ? WHERE id = ? AND ended_at IS NULL", now, id).Error; err != nil {
						t.Fatal(err)
					}
					delete(open, g.ID)
				case rng.IntN(4) == 0: // imported, already closed, any time in the last month
					began := now.Add(-time.Duration(rng.IntN(int(30 * 24 * time.Hour))))
					ended := began.Add(time.Duration(1 + rng.IntN(int(20*time.Hour))))
					a := models.Allocation{TaskID: task.ID, GPUID: g.ID, NodeID: g.NodeID, ProjectID: task.ProjectID, StartedAt: began, EndedAt: &ended}
					if err := db.Create(&a).Error; err != nil {
						t.Fatal(err)
					}
				default:
					a := models.Allocation{TaskID: task.ID, GPUID: g.ID, NodeID: g.NodeID, ProjectID: task.ProjectID,
						StartedAt: now.Add(-time.Duration(rng.IntN(int(time.Minute))))}
					if err := db.Create(&a).Error; err != nil {
						t.Fatal(err)
					}
					open[g.ID] = a.ID
				}
			}
			since := models.MonthStart(now, time.UTC)
			// The scheduler's clock, and a page's a few seconds behind it.
			for _, at := range []time.Time{now, now.Add(-time.Duration(rng.IntN(int(5 * time.Second))))} {
				got, err := s.UsageSeconds(ctx, since, at)
				if err != nil {
					t.Fatal(err)
				}
				if want := usageOfEveryAllocation(t, s, since, at); !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d, %s: UsageSeconds = %v, every allocation = %v", step, at.Format(time.DateTime), got, want)
				}
			}
		}
	})
}

// usageOfEveryAllocation sums every allocation's whole seconds in [since, now), by project
// and spec.
func usageOfEveryAllocation(t *testing.T, s *models.Store, since, now time.Time) map[int64]map[string]int64 {
	t.Helper()
	var all []models.Allocation
	if err := models.DB(s).Find(&all).Error; err != nil {
		t.Fatal(err)
	}
	var gpus []models.GPU
	if err := models.DB(s).Find(&gpus).Error; err != nil {
		t.Fatal(err)
	}
	spec := map[int64]string{}
	for _, g := range gpus {
		spec[g.ID] = g.Spec
	}
	out := map[int64]map[string]int64{}
	for _, a := range all {
		from, to := a.StartedAt, now
		if a.EndedAt != nil && a.EndedAt.Before(now) {
			to = *a.EndedAt
		}
		if from.Before(since) {
			from = since
		}
		if !to.After(from) {
			continue
		}
		if out[a.ProjectID] == nil {
			out[a.ProjectID] = map[string]int64{}
		}
		out[a.ProjectID][spec[a.GPUID]] += int64(to.Sub(from) / time.Second)
	}
	return out
}

// A page's clock a moment behind the scheduler's, across the hour, takes the kept use as it
// is: it read the month whole again, behind the store's lock, each time the two alternated.
func TestUsageSecondsBehindTheHourKeepsTheSums(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	node := modelstest.Node("a").A100s(1).Register(t, s, start)
	task := modelstest.Task("vision", "v").Create(t, s, start)
	end := start.Add(5 * time.Hour)
	if err := models.DB(s).Create(&models.Allocation{TaskID: task.ID, GPUID: node.GPUs[0].ID, NodeID: node.ID,
		ProjectID: task.ProjectID, StartedAt: start.Add(time.Hour), EndedAt: &end}).Error; err != nil {
		t.Fatal(err)
	}
	scheduler := time.Date(2026, 3, 9, 10, 0, 1, 0, time.UTC)
	for _, now := range []time.Time{scheduler, scheduler.Add(-2 * time.Second), scheduler.Add(time.Second), scheduler.Add(-time.Second)} {
		got, err := s.UsageSeconds(ctx, start, now)
		if err != nil {
			t.Fatal(err)
		}
		if want := usageOfEveryAllocation(t, s, start, now); !reflect.DeepEqual(got, want) {
			t.Fatalf("at %s: UsageSeconds = %v, every allocation = %v", now.Format(time.TimeOnly), got, want)
		}
		if built := models.UsageBuilt(s); !built.Equal(scheduler) {
			t.Fatalf("at %s: the kept use was read whole again (at %s), not kept from %s", now.Format(time.TimeOnly),
				built.Format(time.TimeOnly), scheduler.Format(time.TimeOnly))
		}
	}
}
