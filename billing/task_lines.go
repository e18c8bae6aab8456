package billing

import (
	"maps"
	"slices"
)

// taskLines maps a task id to the index of the task's first bill line. Ids are kept in pages
// of 256: a month's ids are dense, so a few thousand small arrays behind a small map stand
// in for a map entry per task, and the ids come out sorted without a sort.
type taskLines struct {
	pages map[int64]*[256]int32 // by id / 256; a slot holds the line's index + 1, 0 for none
}

// get is the index of task's first line, if it has one.
func (x *taskLines) get(task int64) (int, bool) {
	p := x.pages[task>>8]
	if p == nil {
		return 0, false
	}
	v := p[task&255]
	return int(v) - 1, v != 0
}

// set records line i as task's first.
func (x *taskLines) set(task int64, i int) {
	if x.pages == nil {
		x.pages = map[int64]*[256]int32{}
	}
	p := x.pages[task>>8]
	if p == nil {
		p = new([256]int32)
		x.pages[task>>8] = p
	}
	p[task&255] = int32(i + 1)
}

// tasks are the ids that have a line, sorted.
func (x *taskLines) tasks() []int64 {
	var ids []int64
	for _, k := range slices.Sorted(maps.Keys(x.pages)) {
		for j, v := range x.pages[k] {
			if v != 0 {
				ids = append(ids, k<<8|int64(j))
			}
		}
	}
	return ids
}
