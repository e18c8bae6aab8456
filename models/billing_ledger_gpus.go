package models

import (
	"context"
	"database/sql/driver"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// ledgerPage is how many GPUs LedgerGPUs reads at a time: their allocations are held while
// their rollups stream past (a GPU holds a few thousand allocations a month).
const ledgerPage = 8

// LedgerGPUs calls each, GPU by GPU, with every GPU's allocations that overlap the period
// (LedgerQuery: of one project, or of all) by start, and the GPU's 5-minute rollups sorted
// by bucket, reaching back at least to the earliest of those starts (so that setup before
// the first active reading is found for allocations that began before the period) until the
// period's end; nil when it has none, or when the query is HeldOnly. Only the rollups' counts are filled, as
// LedgerReadings fills them. A GPU without such allocations is not given.
//
// A month holds a million allocations and millions of rollups, so neither is held: the GPUs
// are read a page at a time, first their allocations (from their own index, ordered by GPU
// and start: see migrateV28LedgerAllocations), then their rollups, and the pages in a few
// parts at once (one per core), so each may be called concurrently for different GPUs. as and
// rs are reused once each returns. The first error stops the reading and is returned.
func (s *Store) LedgerGPUs(ctx context.Context, q LedgerQuery, each func(gpu int64, as []LedgerAllocation, rs []GPURollup) error) error {
	specs, err := gpuSpecs(s.db.WithContext(ctx))
	if err != nil {
		return err
	}
	ids := slices.Sorted(maps.Keys(specs))
	pages := (len(ids) + ledgerPage - 1) / ledgerPage
	err = inParts(ctx, ids, pages, func(ctx context.Context, part []int64) error {
		var bufs ledgerBufs
		for len(part) > 0 {
			page := part[:min(ledgerPage, len(part))]
			part = part[len(page):]
			if err := s.ledgerPage(ctx, q, specs, page, &bufs, each); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: ledger by GPU: %w", err)
	}
	return nil
}

// ledgerBufs are the buffers of a part of LedgerGPUs, reused page after page.
type ledgerBufs struct {
	as []LedgerAllocation
	rs []GPURollup
}

// ledgerPageQuery selects the allocations of n GPUs that match cond (LedgerQuery.where),
// by GPU and start. SQLite is told to read them from idx_allocations_ledger: with a project in
// cond its planner took the project's index instead, then sorted, reading every allocation
// of the project once per page (on the demo, a project's bill of a few days read its 7,800
// allocations 256 times: 1.35 s).
func (s *Store) ledgerPageQuery(cond string, n int) string {
	from := "allocations"
	if !s.postgres {
		from += " INDEXED BY idx_allocations_ledger"
	}
	in := strings.Repeat("?,", n)
	return `SELECT ` + s.ledgerAllocationCols() + ` FROM ` + from + ` WHERE ` + cond +
		` AND gpu_id IN (` + in[:len(in)-1] + `) ORDER BY gpu_id, started_at`
}

// ledgerPage reads the allocations of the GPUs of page (sorted ids), then streams those GPUs'
// rollups, giving each the GPUs one by one (a merge of the two, both by GPU).
func (s *Store) ledgerPage(ctx context.Context, q LedgerQuery, specs map[int64]string, page []int64, bufs *ledgerBufs,
	each func(int64, []LedgerAllocation, []GPURollup) error) error {
	as := bufs.as[:0]
	defer func() { bufs.as = as[:0] }()
	cond, args := q.where("")
	for _, id := range page {
		args = append(args, id)
	}
	err := s.eachRow(ctx, s.ledgerPageQuery(cond, len(page)), args, func(v []driver.Value) error {
		a, err := ledgerAllocation(v, specs)
		as = append(as, a)
		return err
	})
	if err != nil || len(as) == 0 {
		return err
	}
	since := as[0].Start
	var gpus []int64
	for _, a := range as {
		since = min(since, a.Start)
		if len(gpus) == 0 || gpus[len(gpus)-1] != a.GPUID {
			gpus = append(gpus, a.GPUID)
		}
	}
	rest := as
	// emit gives each the GPUs before gpu, which have no rollups, then gpu with rs.
	emit := func(gpu int64, rs []GPURollup) error {
		for len(rest) > 0 && rest[0].GPUID <= gpu {
			n := 1
			for n < len(rest) && rest[n].GPUID == rest[0].GPUID {
				n++
			}
			var its []GPURollup
			if rest[0].GPUID == gpu {
				its = rs
			}
			if err := each(rest[0].GPUID, rest[:n], its); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	}
	if q.HeldOnly {
		return emit(math.MaxInt64, nil)
	}
	if err := s.ledgerReadings(ctx, gpus, time.Unix(since, 0), q.To, false, &bufs.rs, emit); err != nil {
		return err
	}
	return emit(math.MaxInt64, nil)
}
