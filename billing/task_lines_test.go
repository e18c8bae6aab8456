package billing

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTaskLines: taskLines answers as a map would, for dense and sparse ids, and lists its
// ids sorted.
func TestTaskLines(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	var x taskLines
	want := map[int64]int{}
	for i := range 5000 {
		id := 1 + r.Int64N(3000) // dense, with repeats
		if i%10 == 0 {
			id = 1 + r.Int64N(1<<40) // sparse
		}
		x.set(id, i)
		want[id] = i
	}
	for id, i := range want {
		if got, ok := x.get(id); !ok || got != i {
			t.Fatalf("get(%d) = %d, %v; want %d", id, got, ok, i)
		}
	}
	for _, id := range []int64{0, 3001, 1 << 41} {
		if _, ok := want[id]; !ok {
			if got, ok := x.get(id); ok {
				t.Errorf("get(%d) = %d, want none", id, got)
			}
		}
	}
	if got := x.tasks(); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Errorf("tasks() = %d ids, not the %d set, sorted", len(got), len(want))
	}
}
