package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestLastHeldBefore(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, ok, err := s.LastHeldBefore(ctx, nil, billT0); ok || err != nil {
			t.Fatalf("empty ledger: LastHeldBefore = %v, %v; want none", ok, err)
		}
		n, err := s.RegisterNode(ctx, models.NodeRegistration{Hostname: "n1", Pool: "a100", GPUs: []models.GPUInfo{
			{UUID: "n1-g0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}, "hash-n1", billT0)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		nodes, _ := s.Nodes(ctx)
		run := func(start, end time.Time) {
			tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "a", GPUs: 1, Queue: models.QueueLong,
				Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, start)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PlaceTask(ctx, tk.ID, []int64{nodes[0].GPUs[0].ID}, false, "p", start); err != nil {
				t.Fatal(err)
			}
			if !end.IsZero() {
				if err := s.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
					t.Fatal(err)
				}
			}
		}
		h := func(x float64) time.Time { return billT0.Add(time.Duration(x * float64(time.Hour))) }
		run(h(0), h(2))
		run(h(10), time.Time{}) // open
		for name, c := range map[string]struct {
			ids  []int64
			cut  time.Time
			want time.Time
			ok   bool
		}{
			"before anything":           {nil, h(0), time.Time{}, false},
			"during the first":          {nil, h(1), h(1), true},
			"between them":              {nil, h(5), h(2), true},
			"the open one":              {nil, h(20), h(20), true},
			"of another project":        {[]int64{p.ID + 1}, h(20), time.Time{}, false},
			"of the project by its ids": {[]int64{p.ID}, h(5), h(2), true},
		} {
			at, ok, err := s.LastHeldBefore(ctx, c.ids, c.cut)
			if err != nil || ok != c.ok || !at.Equal(c.want) {
				t.Errorf("%s: LastHeldBefore = %v %v %v, want %v %v", name, at, ok, err, c.want, c.ok)
			}
		}
	})
}
