package scheduler

import (
	"cmp"
	"kashi/models"
	"math"
	"slices"
	"time"
)

// Lanes in queue order.
const (
	laneShort = 0
	laneLong  = 1
)

// laneNames are the lanes as shown, in order: the service lane's tasks are placed as the
// long lane's (see laneService).
var laneNames = [3]string{models.QueueShort, models.QueueLong, models.QueueService}

// qkey is a pending task's place in the queue, compared field by field.
type qkey struct {
	hi  uint64 // lane*8 + 4 unless a rerun + priority rank, then the project's fairness rank
	ts  int64  // submit time, Unix nanoseconds (clamped to what int64 holds)
	id  int64
	idx int32 // index into Snapshot.Pending
}

func (k qkey) lane() uint8 { return uint8(k.hi >> 35) }

// unixNano is t in Unix nanoseconds, clamped to the years int64 holds (1678–2262).
func unixNano(t time.Time) int64 {
	const lim = math.MaxInt64 / int64(time.Second)
	sec := t.Unix()
	switch {
	case sec >= lim:
		return math.MaxInt64
	case sec <= -lim:
		return math.MinInt64
	}
	return sec*1e9 + int64(t.Nanosecond())
}

func priorityRank(p string) uint32 {
	switch p {
	case models.PriorityUrgent:
		return 0
	case models.PriorityHigh:
		return 1
	case models.PriorityLow:
		return 3
	}
	return 2
}

// laneOf is the lane a task queues in: the one it was submitted to (the store holds a short
// task to the short lane's runtime limit).
func laneOf(t *Pending) uint32 {
	if t.Queue == models.QueueShort {
		return laneShort
	}
	return laneLong
}

// fairRatio is a project's usage against its share; lower goes first.
func fairRatio(p Project, ok bool) float64 {
	if !ok {
		return 0
	}
	share := p.Share
	if !(share > 0) {
		share = 1
	}
	usage := p.Usage
	if math.IsNaN(usage) {
		return math.Inf(1)
	}
	if usage < 0 {
		usage = 0
	}
	return usage / share
}

// queue is the ordered pending list and the per-project facts Decide needs.
type queue struct {
	keys     []qkey  // in queue order
	projOf   []int32 // project index by pending index
	projName []string
	projIdx  map[string]int32
}

// buildQueue orders pending. Projects are ranked once by usage/share, so each comparison is
// a few integer compares.
func buildQueue(pending []Pending, projects map[string]Project, pol *Policy) queue {
	q := queue{
		keys:    make([]qkey, len(pending)),
		projOf:  make([]int32, len(pending)),
		projIdx: make(map[string]int32),
	}
	last := ""
	lastIdx := int32(-1)
	for i := range pending {
		name := pending[i].Project
		if name != last || lastIdx < 0 {
			pi, ok := q.projIdx[name]
			if !ok {
				pi = int32(len(q.projName))
				q.projIdx[name] = pi
				q.projName = append(q.projName, name)
			}
			last, lastIdx = name, pi
		}
		q.projOf[i] = lastIdx
	}
	ratio := make([]float64, len(q.projName))
	byRatio := make([]int32, len(q.projName))
	for i, name := range q.projName {
		p, ok := projects[name]
		ratio[i] = fairRatio(p, ok)
		byRatio[i] = int32(i)
	}
	slices.SortFunc(byRatio, func(a, b int32) int { return cmp.Compare(ratio[a], ratio[b]) })
	rank := make([]uint32, len(q.projName))
	for i, p := range byRatio {
		if i > 0 && ratio[p] != ratio[byRatio[i-1]] {
			rank[p] = rank[byRatio[i-1]] + 1
		} else if i > 0 {
			rank[p] = rank[byRatio[i-1]]
		}
	}
	// Lane, rerun, priority and fairness rank form few classes: place the keys by class with
	// a counting sort, then sort each class by submit time and id. A rerun (a task queued
	// again after its node was lost) comes before every other task of its lane.
	nRanks := uint64(1)
	for _, r := range rank {
		nRanks = max(nRanks, uint64(r)+1)
	}
	classOf := func(hi uint64) uint64 { return (hi>>32)*nRanks + hi&math.MaxUint32 }
	unsorted := make([]qkey, len(pending))
	start := make([]int32, 16*nRanks+1)
	for i := range pending {
		t := &pending[i]
		lp := uint64(laneOf(t)*8 + priorityRank(t.Priority))
		if !t.Rerun {
			lp += 4
		}
		k := qkey{
			hi:  lp<<32 | uint64(rank[q.projOf[i]]),
			ts:  unixNano(t.SubmittedAt),
			id:  t.ID,
			idx: int32(i),
		}
		unsorted[i] = k
		start[classOf(k.hi)+1]++
	}
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	next := slices.Clone(start)
	for _, k := range unsorted {
		c := classOf(k.hi)
		q.keys[next[c]] = k
		next[c]++
	}
	for c := 0; c+1 < len(start); c++ {
		if class := q.keys[start[c]:start[c+1]]; len(class) > 1 {
			slices.SortFunc(class, compareInClass)
		}
	}
	return q
}

// compareInClass orders keys of one class: submit time, id, then input position.
func compareInClass(a, b qkey) int {
	if a.ts != b.ts {
		return cmp.Compare(a.ts, b.ts)
	}
	if a.id != b.id {
		return cmp.Compare(a.id, b.id)
	}
	return cmp.Compare(a.idx, b.idx)
}

func (p Policy) normalized() Policy {
	if p.Location == nil {
		p.Location = time.UTC
	}
	if p.ETADepth == 0 {
		p.ETADepth = DefaultETADepth
	}
	return p
}
