package billing

import (
	"kashi/models"
)

// Readings give Classify its rollups: a Readings calls each with every GPU's 5-minute
// rollups sorted by bucket, GPU by GPU, and returns the first error. A month holds millions
// of rollups, so they are streamed from the store rather than held (models.Store's
// LedgerReadings): rs is valid only until each returns, and each may be called concurrently
// for different GPUs. Nil readings have no rollups.
type Readings func(each func(gpu int64, rs []models.GPURollup) error) error

// GPULedger gives Compute the month's allocations and their rollups: a GPULedger calls each
// with every GPU's allocations that overlap the month and the GPU's 5-minute rollups sorted by
// bucket, reaching back to the allocations' starts (nil when it has none), each GPU once, and
// returns the first error. A month holds a million allocations and millions of rollups, so
// both are streamed from the store rather than held (models.Store's LedgerGPUs): as and rs
// are valid only until each returns, and each may be called concurrently for different GPUs.
// A nil GPULedger has no allocations.
type GPULedger func(each func(gpu int64, as []models.LedgerAllocation, rs []models.GPURollup) error) error

// TaskSource gives the tasks of ids (sorted) by id, as models.Store's LedgerTasks does; one
// not found is left out.
type TaskSource func(ids []int64) ([]models.LedgerTask, error)

// eachClassified calls f for every allocation (by index) with its held span and its GPU's
// rollups, nil when the GPU has none; calls for different GPUs may run at once, so f writes
// only what belongs to allocation i.
func eachClassified(allocs []models.LedgerAllocation, nodes map[int64]models.LedgerNode, asOf int64, rd Readings,
	f func(i int, held Span, rs []models.GPURollup)) error {
	// The allocations of each GPU, as indexes into one array.
	count := map[int64]int32{}
	for i := range allocs {
		count[allocs[i].GPUID]++
	}
	type gpuAllocs struct {
		idx  []int32
		done bool
	}
	byGPU := make(map[int64]*gpuAllocs, len(count))
	all := make([]int32, len(allocs))
	next := int32(0)
	for g, n := range count {
		byGPU[g] = &gpuAllocs{idx: all[next : next : next+n]}
		next += n
	}
	for i := range allocs {
		g := byGPU[allocs[i].GPUID]
		g.idx = append(g.idx, int32(i))
	}
	run := func(g *gpuAllocs, rs []models.GPURollup) {
		for _, i := range g.idx {
			f(int(i), heldSpan(&allocs[i], nodes, asOf), rs)
		}
		g.done = true
	}
	if rd != nil {
		err := rd(func(gpu int64, rs []models.GPURollup) error {
			if g := byGPU[gpu]; g != nil && !g.done {
				run(g, rs)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, g := range byGPU {
		if !g.done {
			run(g, nil)
		}
	}
	return nil
}
