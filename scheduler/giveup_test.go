package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Lost nodes and runtime stops are decided by Decide like placements, so they appear in the
// plan that the loop applies and that pages and replay see.
func TestDecideGivesUpLostNodesAndStopsOverRuntime(t *testing.T) {
	seen := func(n Node, at time.Time) Node { n.Live, n.LastSeen = true, at; return n }
	tests := map[string]struct {
		snap      Snapshot
		wantLost  []int64
		wantStops []Stop
	}{
		"no cutoff gives up no node": {
			snap: snapshot(seen(node(1, "A100-80G", 8), t0.Add(-time.Hour))).s,
		},
		"a live node silent since before the cutoff is lost": {
			snap: func() Snapshot {
				s := snapshot(seen(node(2, "A100-80G", 8), t0.Add(-time.Hour)), seen(node(1, "A100-80G", 8), t0.Add(-20*time.Minute)),
					seen(node(3, "A100-80G", 8), t0)).s
				s.LostBefore = t0.Add(-10 * time.Minute)
				return s
			}(),
			wantLost: []int64{1, 2},
		},
		"a node already lost is not lost again": {
			snap: func() Snapshot {
				s := snapshot(node(1, "A100-80G", 8)).s // not live
				s.LostBefore = t0
				return s
			}(),
		},
		"tasks past their max runtime stop, at it or under it run on": {
			snap: snapshot(node(1, "A100-80G", 8)).run(
				running(3, gid(1, 2)).maxRun(30*time.Minute), // ran 1h
				running(1, gid(1, 0)).maxRun(time.Hour),      // exactly at the limit
				running(2, gid(1, 1)),                        // no limit
			).s,
			wantStops: []Stop{{TaskID: 3, MaxRuntime: 30 * time.Minute}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			plan := Decide(tc.snap, t0, Policy{})
			if diff := cmp.Diff(tc.wantLost, plan.LostNodes); diff != "" {
				t.Errorf("Decide(...).LostNodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantStops, plan.Stops); diff != "" {
				t.Errorf("Decide(...).Stops (-want +got):\n%s", diff)
			}
		})
	}
}
