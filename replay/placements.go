package replay

// Placement is where and when a replayed job ran: the cards it held (see CardNode) over
// [Start, End), Unix seconds on the trace's clock. Started is false for a job that never
// started.
type Placement struct {
	JobID      string
	Started    bool
	Start, End int64
	Cards      []int64
}

// NodeSpan is a machine of the replay's fleet: its pool, when it was asked for, and when it
// was removed (0 when it was still there at the end).
type NodeSpan struct {
	ID           int64
	Pool         string
	Since, Until int64
}

// CardNode is the node id and index on it of a card id of a Placement.
func CardNode(card int64) (node int64, index int) {
	return card >> gpuBits, int(card & (1<<gpuBits - 1))
}

// Placements are the replayed jobs' placements, in trace order (submit, row); jobs left out
// (Skipped) have none.
func (r *Result) Placements() []Placement {
	out := make([]Placement, len(r.jobs))
	for i := range r.jobs {
		run := &r.runs[i]
		out[i] = Placement{JobID: r.jobs[i].ID, Started: run.started, Start: run.start, End: run.end, Cards: run.cards}
	}
	return out
}

// Nodes are the machines of the replay's fleet, by id.
func (r *Result) Nodes() []NodeSpan { return r.nodes }
