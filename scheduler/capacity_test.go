package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outside marks the node's cards of the indexes used outside Kashi.
func outside(n Node, indexes ...int) Node {
	for _, i := range indexes {
		n.GPUs[i].Outside = true
	}
	return n
}

func TestFreeCapacity(t *testing.T) {
	tests := map[string]struct {
		snap Snapshot
		want []SpecCapacity
	}{
		"empty fleet": {Snapshot{}, []SpecCapacity{}},
		"all free": {
			snapshot(node(1, "A100-80G", 8), node(2, "A100-80G", 8)).s,
			[]SpecCapacity{{Spec: "A100-80G", Total: 16, Free: 16, LargestFree: 8}},
		},
		"held cards and the largest block": {
			// Node 1 has 2 free, node 2 has 5 free: 7 free, but at most 5 on one node.
			snapshot(node(1, "A100-80G", 8), node(2, "A100-80G", 8)).
				run(running(10, gpus(1, 0, 5)...), running(11, gpus(2, 0, 2)...)).s,
			[]SpecCapacity{{Spec: "A100-80G", Total: 16, Held: 9, Free: 7, LargestFree: 5}},
		},
		"unschedulable nodes count in total, not in free": {
			snapshot(node(1, "H800-80G", 8), draining(node(2, "H800-80G", 8))).
				run(running(10, gpus(2, 0, 3)...)).s,
			[]SpecCapacity{{Spec: "H800-80G", Total: 16, Held: 4, Free: 8, LargestFree: 8}},
		},
		"specs in name order": {
			snapshot(node(1, "RTX4090-24G", 4), node(2, "A100-80G", 8), node(3, "H800-80G", 8)).
				run(running(10, gpus(3, 0, 7)...)).s,
			[]SpecCapacity{
				{Spec: "A100-80G", Total: 8, Free: 8, LargestFree: 8},
				{Spec: "H800-80G", Total: 8, Held: 8},
				{Spec: "RTX4090-24G", Total: 4, Free: 4, LargestFree: 4},
			},
		},
		"the short lane's reserve and its use": {
			snapshot(node(1, "A100-80G", 8), shortOnly(node(2, "A100-80G", 8)), draining(shortOnly(node(3, "A100-80G", 8)))).
				run(running(10, gpus(2, 0, 2)...)).s,
			[]SpecCapacity{{Spec: "A100-80G", Total: 24, Held: 3, Free: 13, LargestFree: 8, ShortReserve: 8, ShortReserveHeld: 3}},
		},
		"cards used outside Kashi are neither held nor free": {
			snapshot(outside(node(1, "A100-80G", 8), 6, 7), outside(shortOnly(node(2, "A100-80G", 4)), 0)).
				run(running(10, gpus(1, 0, 1)...), running(11, gid(2, 1))).s,
			[]SpecCapacity{{Spec: "A100-80G", Total: 12, Held: 3, Free: 6, LargestFree: 4, ShortReserve: 4, ShortReserveHeld: 1}},
		},
		"a card held twice counts once; unknown cards are ignored": {
			snapshot(node(1, "A100-80G", 4)).run(running(10, gid(1, 0)), running(11, gid(1, 0), gid(9, 9))).s,
			[]SpecCapacity{{Spec: "A100-80G", Total: 4, Held: 1, Free: 3, LargestFree: 3}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FreeCapacity(tc.snap, t0)); diff != "" {
				t.Errorf("FreeCapacity(...) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
