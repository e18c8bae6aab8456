package billing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestEstimateMisses: the report lists per project the tasks that ended in the window with
// an estimate, largest miss first whichever its sign, at most MissesPerProject each, whole
// tasks counted; tasks without an estimate or still running are left out.
func TestEstimateMisses(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").project(2, "beta")
	// Task id → estimate and hours held; project 1 has five with estimates.
	for i, c := range []struct {
		project    int64
		est, hours float64
	}{{1, 1, 2}, {1, 4, 1}, {1, 2, 2}, {1, 1, 6}, {1, 10, 2}, {1, 0, 9}, {2, 5, 1}} {
		id := int64(i + 1)
		f.task(id, c.project, "t", models.TaskSucceeded, 0, 100+c.hours).hold(id, c.project, id, a100, 100, 100+c.hours, false)
		f.tasks[i].EstimatedS = int64(c.est * 3600)
	}
	f.task(8, 2, "running", models.TaskRunning, 0, -1).hold(8, 2, 8, a100, 100, -1, false)
	f.tasks[7].EstimatedS = 3600
	from, to := f.in.Month.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks})
	if err != nil {
		t.Fatal(err)
	}
	var got [][3]int64 // task, estimated h, miss h
	for _, m := range r.Misses {
		got = append(got, [3]int64{m.TaskID, m.EstimatedS / 3600, m.MissS / 3600})
		if m.ActualS-m.EstimatedS != m.MissS {
			t.Errorf("miss %+v does not add up", m)
		}
	}
	want := [][3]int64{{5, 10, -8}, {4, 1, 5}, {2, 4, -3}, {7, 5, -4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Misses (-want +got):\n%s", diff)
	}
}
