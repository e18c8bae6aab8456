package replay

import "testing"

// TestPlacements: on an elastic fleet every started job holds as many cards as it asked, on
// nodes of its pool that existed while it ran, no card held by two jobs at once.
func TestPlacements(t *testing.T) {
	res := run(t, openb(t), Options{Policy: PolicyKashi, Fleet: elasticFleet()})
	nodes := make(map[int64]NodeSpan)
	for _, n := range res.Nodes() {
		nodes[n.ID] = n
	}
	type hold struct{ start, end int64 }
	held := make(map[int64][]hold)
	ps := res.Placements()
	if len(ps) != res.Jobs {
		t.Fatalf("%d placements for %d jobs", len(ps), res.Jobs)
	}
	for i, p := range ps {
		j := res.jobs[i]
		if !p.Started || p.JobID != j.ID || len(p.Cards) != j.GPUs || p.Start < j.Submit || p.End != p.Start+j.Duration {
			t.Fatalf("job %s (submit %d, %d GPUs, %d s): placement %+v", j.ID, j.Submit, j.GPUs, j.Duration, p)
		}
		for _, c := range p.Cards {
			id, _ := CardNode(c)
			n, ok := nodes[id]
			if !ok || n.Since > p.Start || n.Until != 0 && n.Until < p.End {
				t.Fatalf("job %s ran on node %d (%+v, known %v) over [%d, %d)", j.ID, id, n, ok, p.Start, p.End)
			}
			for _, h := range held[c] {
				if p.Start < h.end && h.start < p.End && p.End > p.Start {
					t.Fatalf("card %d held twice: [%d, %d) and job %s [%d, %d)", c, h.start, h.end, j.ID, p.Start, p.End)
				}
			}
			held[c] = append(held[c], hold{p.Start, p.End})
		}
	}
}
