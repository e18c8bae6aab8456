package billing

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestLedgerTasksInParts: tens of thousands of tasks asked for at once are read in parts,
// a dense part in one pass over its range and a sparse one in chunks of ids, and come back
// whole, by id, without those that do not exist.
func TestLedgerTasksInParts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a store of 27,000 tasks")
	}
	lr := benchRows(benchScale{projects: 50, allocations: 100_000, nodes: 4})
	st := openRawStore(t, t.TempDir())
	st.load(t, lr)
	var ids []int64
	var want []models.LedgerTask
	for _, task := range lr.tasks {
		if task.ID%7 == 0 && task.ID < int64(len(lr.tasks))/2 { // gaps in the dense part
			continue
		}
		ids = append(ids, task.ID)
		task.Ending, task.EstimatedS = models.TaskEnding(task.State, ""), 3600
		want = append(want, task)
	}
	ids = append(ids, 1_000_000, 2_000_000) // none such: the last part is sparse
	got, err := st.LedgerTasks(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 20_000 {
		t.Fatalf("%d tasks, want enough for two parts", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LedgerTasks of %d ids (-want +got):\n%s", len(ids), diff)
	}
}
