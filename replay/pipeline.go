package replay

import "strings"

// Causes of a pipeline's job Run leaves out.
const (
	SkipParentMissing = "parent_missing" // a parent job_id no usable job of the trace has
	SkipParentCycle   = "parent_cycle"   // its parents lead back to itself
	SkipParentFailed  = "parent_failed"  // a parent (or its parent…) ended unsuccessfully
)

// deps holds the replay's pipelines: which jobs wait on which. It is nil for a trace
// without a parent column, so such a replay pays nothing for it.
type deps struct {
	children [][]int32
	// wait counts each job's parents that have not yet succeeded.
	wait    []int32
	arrived []bool
	dead    []bool
	// failed counts the jobs skipped because a parent failed.
	failed int
}

// linkPipelines drops the jobs whose parents are missing or form a cycle (and the jobs
// after those), counting them in skipped, and returns the jobs kept with their links; deps
// is nil when no job has a parent.
func linkPipelines(jobs []Job, skipped map[string]int) ([]Job, *deps) {
	has := false
	for i := range jobs {
		if jobs[i].parent() != "" {
			has = true
			break
		}
	}
	if !has {
		return jobs, nil
	}
	index := make(map[string]int32, len(jobs))
	for i := range jobs {
		index[jobs[i].ID] = int32(i)
	}
	parents := make([][]int32, len(jobs))
	children := make([][]int32, len(jobs))
	cause := make([]string, len(jobs))
	for i := range jobs {
		if jobs[i].parent() == "" {
			continue
		}
		for id := range strings.SplitSeq(jobs[i].parent(), ";") {
			p, ok := index[id]
			if !ok {
				cause[i] = SkipParentMissing
				continue
			}
			parents[i] = append(parents[i], p)
			children[p] = append(children[p], int32(i))
		}
	}
	// Kahn's order: a job is reached once all its parents are; those never reached sit on
	// a cycle or after one. A job dropped passes its cause on to its children.
	pending := make([]int32, len(jobs))
	var queue []int32
	for i := range jobs {
		pending[i] = int32(len(parents[i]))
		if pending[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		for _, c := range children[j] {
			if cause[j] != "" && cause[c] == "" {
				cause[c] = cause[j]
			}
			if pending[c]--; pending[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	newIdx := make([]int32, len(jobs))
	out := jobs[:0:0]
	for i := range jobs {
		if pending[i] > 0 && cause[i] == "" {
			cause[i] = SkipParentCycle
		}
		if cause[i] != "" {
			skipped[cause[i]]++
			newIdx[i] = -1
			continue
		}
		newIdx[i] = int32(len(out))
		out = append(out, jobs[i])
	}
	d := &deps{children: make([][]int32, len(out)), wait: make([]int32, len(out)),
		arrived: make([]bool, len(out)), dead: make([]bool, len(out))}
	for i := range jobs {
		if newIdx[i] < 0 {
			continue
		}
		d.wait[newIdx[i]] = int32(len(parents[i]))
		for _, c := range children[i] {
			if newIdx[c] >= 0 {
				d.children[newIdx[i]] = append(d.children[newIdx[i]], newIdx[c])
			}
		}
	}
	return out, d
}

// arrive is job j's submit time: it joins the queue unless a parent has not succeeded yet
// (it waits, holding nothing) or one failed (it was skipped).
func (s *sim) arrive(j int32) {
	if d := s.deps; d != nil {
		if d.dead[j] {
			return
		}
		if d.wait[j] > 0 {
			d.arrived[j] = true
			return
		}
	}
	s.pending = append(s.pending, j)
	s.dirty = true
}

// parentEnded moves job j's children on as it ends: after a failure they are skipped (and
// theirs); after a success a child whose parents have all succeeded is submitted now, if
// its own submit time has come.
func (s *sim) parentEnded(j int32) {
	d := s.deps
	failed := s.jobs[j].Pipe != nil && s.jobs[j].Pipe.Failed
	for _, c := range d.children[j] {
		if failed {
			s.skipAfterFailure(c)
			continue
		}
		if d.wait[c]--; d.wait[c] == 0 && d.arrived[c] && !d.dead[c] {
			s.jobs[c].Submit = s.now
			s.pending = append(s.pending, c)
			s.dirty = true
		}
	}
}

// skipAfterFailure marks job j and the jobs after it skipped.
func (s *sim) skipAfterFailure(j int32) {
	d := s.deps
	for stack := []int32{j}; len(stack) > 0; {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.dead[k] {
			continue
		}
		d.dead[k] = true
		d.failed++
		stack = append(stack, d.children[k]...)
	}
}
