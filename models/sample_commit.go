package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// maxGroup bounds how many nodes' batches one group commit takes.
const maxGroup = 512

// sampleJob is one node's batch waiting for the next group commit.
type sampleJob struct {
	nodeID  int64
	samples []Reading
	now     time.Time
	done    chan sampleDone
}

// sampleDone is what a group commit answers one job.
type sampleDone struct {
	res IngestResult
	err error
}

// sampleCommitter group-commits samples: one goroutine takes every batch that arrived while
// the previous commit ran and writes them in one transaction, so a thousand agents reporting
// each second cost a few write transactions, not a thousand.
type sampleCommitter struct {
	jobs     chan *sampleJob
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
}

func startSampleCommitter(s *Store) *sampleCommitter {
	c := &sampleCommitter{jobs: make(chan *sampleJob, maxGroup), quit: make(chan struct{}), stopped: make(chan struct{})}
	go c.run(s)
	return c
}

// minCommitGap is the least time from one group commit's start to the next. A lone batch is
// committed at once; under a stream of batches the next commit waits out the gap and takes
// everything that arrived meanwhile, so the commits per second stay bounded (measured on
// Postgres with 512 agents: about 150 small commits a second before, each paying a WAL flush
// and the GPUs' read).
const minCommitGap = 10 * time.Millisecond

// run commits groups until stop.
func (c *sampleCommitter) run(s *Store) {
	defer close(c.stopped)
	var last time.Time
	for {
		var group []*sampleJob
		select {
		case <-c.quit:
			return
		case j := <-c.jobs:
			group = append(group, j)
		}
		if wait := minCommitGap - time.Since(last); wait > 0 {
			c.gather(&group, wait)
		}
		last = time.Now()
	more:
		for len(group) < maxGroup {
			select {
			case j := <-c.jobs:
				group = append(group, j)
			default:
				break more
			}
		}
		s.commitSamples(group)
	}
}

// gather adds the batches that arrive within wait to group, up to maxGroup.
func (c *sampleCommitter) gather(group *[]*sampleJob, wait time.Duration) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for len(*group) < maxGroup {
		select {
		case j := <-c.jobs:
			*group = append(*group, j)
		case <-t.C:
			return
		case <-c.quit:
			return
		}
	}
}

// stop ends the committer after the group in progress; later calls do nothing.
func (c *sampleCommitter) stop() {
	c.stopOnce.Do(func() { close(c.quit) })
	<-c.stopped
}

// submit queues a job and waits for its commit, or for ctx.
func (c *sampleCommitter) submit(ctx context.Context, j *sampleJob) (IngestResult, error) {
	select {
	case c.jobs <- j:
	case <-c.quit:
		return IngestResult{}, errors.New("store closed")
	case <-ctx.Done():
		return IngestResult{}, ctx.Err()
	}
	select {
	case d := <-j.done:
		return d.res, d.err
	case <-c.stopped:
		select {
		case d := <-j.done: // in the last group
			return d.res, d.err
		default: // closed before its group was taken
			return IngestResult{}, errors.New("models: ingest samples: store closed")
		}
	case <-ctx.Done():
		return IngestResult{}, ctx.Err()
	}
}

// commitSamples writes a group in one transaction: each job's samples (a job with a bad
// sample is refused alone), the GPUs' latest readings and timers, their use by processes of
// no task where it changed (with its alert), and the nodes' last-seen times. Then it updates the live view and answers every job.
func (s *Store) commitSamples(group []*sampleJob) {
	ctx := quiet(context.Background())
	done := make([]sampleDone, len(group))
	var (
		gpus      []GPU
		advanced  []GPU
		seen      = map[int64]time.Time{}
		back      int64
		unmanaged []unmanagedChange
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		nodeIDs := make([]int64, 0, len(group))
		for _, j := range group {
			nodeIDs = append(nodeIDs, j.nodeID)
		}
		slices.Sort(nodeIDs)
		nodeIDs = slices.Compact(nodeIDs)
		var err error
		if gpus, err = readGPUs(tx, "node_id IN ?", nodeIDs); err != nil {
			return err
		}
		byNode := map[int64]map[string]*GPU{}
		for i := range gpus {
			g := &gpus[i]
			if byNode[g.NodeID] == nil {
				byNode[g.NodeID] = map[string]*GPU{}
			}
			byNode[g.NodeID][g.UUID] = g
		}
		issued, err := issuedUntil(tx)
		if err != nil {
			return err
		}
		var (
			all   []GPUSample
			owner []int // the job of each row of all
		)
		for i, j := range group {
			rows, err := sampleRows(j.samples, byNode[j.nodeID], reportFloorAt(j.now, issued), j.now)
			if err != nil {
				done[i].err = err
				continue
			}
			all = append(all, rows...)
			for range rows {
				owner = append(owner, i)
			}
			done[i].res.Duplicates = len(rows)
			if j.now.After(seen[j.nodeID]) {
				seen[j.nodeID] = j.now
			}
		}
		inserted, err := insertSamples(tx, all)
		if err != nil {
			return err
		}
		for k, r := range all {
			if key := [2]int64{r.GPUID, r.TS}; inserted[key] {
				delete(inserted, key) // a repeat of the same reading in the group is a duplicate
				done[owner[k]].res.Accepted++
				done[owner[k]].res.Duplicates--
			}
		}
		advanced = s.advanceGPUs(gpus, all)
		if err := s.saveGPUReadings(tx, advanced); err != nil {
			return err
		}
		unmanaged = unmanagedChanges(group, done, byNode)
		if err := saveUnmanaged(tx, unmanaged); err != nil {
			return err
		}
		back, err = s.markNodesSeen(tx, seen)
		return err
	})
	if err == nil {
		s.live.record(advanced, seen)
		if back > 0 || len(unmanaged) > 0 {
			// A node given up as lost that reports again is back, or a GPU's use by
			// processes of no task changed: the board must show it.
			s.changed(context.Background())
		}
	}
	for i, j := range group {
		if err != nil && done[i].err == nil {
			done[i].err = fmt.Errorf("models: ingest samples of node %d: %w", j.nodeID, err)
		}
		j.done <- done[i]
	}
}

// insertSamples inserts rows, a thousand to a statement, skipping readings already stored,
// and returns the (GPU, ts) of those it inserted.
func insertSamples(tx *gorm.DB, rows []GPUSample) (map[[2]int64]bool, error) {
	const chunk = 1000
	inserted := make(map[[2]int64]bool, len(rows))
	for len(rows) > 0 {
		n := min(len(rows), chunk)
		var sb strings.Builder
		args := make([]any, 0, 6*n)
		sb.WriteString("INSERT INTO gpu_samples (gpu_id, ts, memory_used_mib, util_pct, temp_c, power_w) VALUES ")
		for i, r := range rows[:n] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString("(?,?,?,?,?,?)")
			args = append(args, r.GPUID, r.TS, r.MemoryUsedMiB, r.UtilPct, r.TempC, r.PowerW)
		}
		sb.WriteString(" ON CONFLICT DO NOTHING RETURNING gpu_id, ts")
		res, err := tx.Raw(sb.String(), args...).Rows()
		if err != nil {
			return nil, fmt.Errorf("insert samples: %w", err)
		}
		for res.Next() {
			var key [2]int64
			if err := res.Scan(&key[0], &key[1]); err != nil {
				res.Close()
				return nil, fmt.Errorf("insert samples: %w", err)
			}
			inserted[key] = true
		}
		res.Close()
		if err := res.Err(); err != nil {
			return nil, fmt.Errorf("insert samples: %w", err)
		}
		rows = rows[n:]
	}
	return inserted, nil
}

// sampleRows validates one node's batch against its GPUs and the window [floor, now +
// MaxFutureSkew] and returns its rows.
func sampleRows(samples []Reading, byUUID map[string]*GPU, floor, now time.Time) ([]GPUSample, error) {
	rows := make([]GPUSample, len(samples))
	for i, sm := range samples {
		g, err := validateSample(i, sm, byUUID, floor, now)
		if err != nil {
			return nil, err
		}
		rows[i] = GPUSample{GPUID: g.ID, TS: sm.TS.Unix(), MemoryUsedMiB: sm.MemoryUsedMiB, UtilPct: sm.UtilPct, TempC: sm.TempC, PowerW: sm.PowerW}
	}
	return rows, nil
}

// saveGPUReadings writes the GPUs' latest readings and timers, a few hundred GPUs to a
// statement (UPDATE … FROM VALUES, which SQLite and Postgres both run; VALUES columns are
// named column1… on both).
func (s *Store) saveGPUReadings(tx *gorm.DB, gpus []GPU) error {
	const chunk = 500
	num, ts := "?", "?"
	if s.postgres {
		// Postgres types a VALUES list from its parameters only when told.
		num, ts = "CAST(? AS BIGINT)", "CAST(? AS TIMESTAMPTZ)"
	}
	row := "(" + strings.Join([]string{num, num, num, num, num, ts, ts, ts}, ",") + ")"
	for len(gpus) > 0 {
		n := min(len(gpus), chunk)
		var sb strings.Builder
		args := make([]any, 0, 8*n)
		sb.WriteString("UPDATE gpus SET memory_used_mib = v.column2, util_pct = v.column3, temp_c = v.column4, " +
			"power_w = v.column5, sampled_at = v.column6, idle_since = v.column7, saturated_since = v.column8 FROM (VALUES ")
		for i, g := range gpus[:n] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(row)
			args = append(args, g.ID, g.MemoryUsedMiB, g.UtilPct, g.TempC, g.PowerW, g.SampledAt, g.IdleSince, g.SaturatedSince)
		}
		sb.WriteString(") AS v WHERE gpus.id = v.column1")
		if err := tx.Exec(sb.String(), args...).Error; err != nil {
			return fmt.Errorf("update gpu readings: %w", err)
		}
		gpus = gpus[n:]
	}
	return nil
}

// markNodesSeen sets the nodes' last-seen times, a few hundred nodes to a statement (UPDATE …
// FROM VALUES, as saveGPUReadings), and brings lost nodes back to ready; it returns how many
// came back.
func (s *Store) markNodesSeen(tx *gorm.DB, seen map[int64]time.Time) (int64, error) {
	if len(seen) == 0 {
		return 0, nil
	}
	ids := make([]int64, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same lock order in every group
	row := "(?,?)"
	if s.postgres {
		row = "(CAST(? AS BIGINT),CAST(? AS TIMESTAMPTZ))"
	}
	const chunk = 500
	for rest := ids; len(rest) > 0; {
		n := min(len(rest), chunk)
		var sb strings.Builder
		args := make([]any, 0, 2*n)
		sb.WriteString("UPDATE nodes SET last_seen_at = v.column2 FROM (VALUES ")
		for i, id := range rest[:n] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(row)
			args = append(args, id, seen[id])
		}
		sb.WriteString(") AS v WHERE nodes.id = v.column1")
		if err := tx.Exec(sb.String(), args...).Error; err != nil {
			return 0, fmt.Errorf("mark nodes seen: %w", err)
		}
		rest = rest[n:]
	}
	res := tx.Model(&Node{}).Where("id IN ? AND state = ?", ids, NodeLost).Update("state", NodeReady)
	if res.Error != nil {
		return 0, fmt.Errorf("mark nodes seen: %w", res.Error)
	}
	return res.RowsAffected, nil
}
