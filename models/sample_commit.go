package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
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

// minCommitGap is the least time from one group commit of samples' start to the next. A lone
// batch is committed at once; under a stream of batches the next commit waits out the gap and
// takes everything that arrived meanwhile, so the commits per second stay bounded (measured
// on Postgres with 512 agents: about 150 small commits a second before, each paying a WAL
// flush and the GPUs' read).
const minCommitGap = 10 * time.Millisecond

// startSampleCommitter starts the group commit of samples: a thousand agents reporting each
// second cost a few write transactions, not a thousand. On Postgres two groups are written at
// once (each node's batches are in one of them: an agent sends one at a time).
func startSampleCommitter(s *Store) *groupCommitter[*sampleJob] {
	return startGroupCommitter("ingest samples", maxGroup, minCommitGap, parallelOn(s, 2), s.commitSamples)
}

// commitSamples writes a group in one transaction: each job's samples (a job with a bad
// sample is refused alone), their use by processes of no task where it changed (with its
// alert), and the nodes' last-seen times. Then it moves the GPUs' latest readings and timers
// forward in the live view, which writes them to the rows behind (gpu_write_behind.go), and
// answers every job. The GPUs' rows come from gpuRows, read again only for nodes it does not
// hold, and for a node whose batch they refuse.
func (s *Store) commitSamples(group []*sampleJob) {
	ctx := quiet(context.Background())
	done := make([]sampleDone, len(group))
	nodeIDs := make([]int64, 0, len(group))
	for _, j := range group {
		nodeIDs = append(nodeIDs, j.nodeID)
	}
	slices.Sort(nodeIDs)
	nodeIDs = slices.Compact(nodeIDs)
	gpus, missing, gen := s.gpuRows.get(nodeIDs)
	fresh := make(map[int64]bool, len(missing))
	var (
		advanced  []GPU
		seen      map[int64]time.Time
		back      int64
		unmanaged []unmanagedChange
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.postgres {
			// Readings do not wait for Postgres's disk flush: a database crash may lose the
			// last fraction of a second of them (Postgres's wal_writer_delay, 200 ms by
			// default, three times at worst) and never leaves a half-written group. The
			// next reading sets the GPU's state again; money is written elsewhere, flushed.
			if err := tx.Exec("SET LOCAL synchronous_commit = off").Error; err != nil {
				return err
			}
		}
		var err error
		if gpus, err = s.readGPURows(tx, gpus, missing, fresh); err != nil {
			return err
		}
		issued, err := issuedUntil(tx)
		if err != nil {
			return err
		}
		byNode := gpusByNode(gpus)
		all, owner := validateGroup(group, done, byNode, issued)
		var stale []int64 // nodes whose held rows refused a batch: read them and try again
		for i, j := range group {
			if done[i].err != nil && !fresh[j.nodeID] && !slices.Contains(stale, j.nodeID) {
				stale = append(stale, j.nodeID)
			}
		}
		if len(stale) > 0 {
			gpus = slices.DeleteFunc(gpus, func(g GPU) bool { return slices.Contains(stale, g.NodeID) })
			if gpus, err = s.readGPURows(tx, gpus, stale, fresh); err != nil {
				return err
			}
			clear(done)
			byNode = gpusByNode(gpus)
			all, owner = validateGroup(group, done, byNode, issued)
		}
		seen = map[int64]time.Time{}
		for i, j := range group {
			if done[i].err == nil && j.now.After(seen[j.nodeID]) {
				seen[j.nodeID] = j.now
			}
		}
		inserted, err := s.insertSamples(tx, all)
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
		if err := raiseXIDAlerts(tx, group, done, byNode); err != nil {
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
		applyUnmanaged(unmanaged)
		s.gpuRows.put(gpus, fresh, gen)
		s.live.record(advanced, seen)
		if back > 0 || len(unmanaged) > 0 {
			// A node given up as lost that reports again is back, or a GPU's use by
			// processes of no task changed: the board and the fleet must show it.
			s.changed(context.Background())
			s.fleet.forget()
		}
	}
	for i, j := range group {
		if err != nil && done[i].err == nil {
			done[i].err = fmt.Errorf("models: ingest samples of node %d: %w", j.nodeID, err)
		}
		j.done <- done[i]
	}
}

// readGPURows adds the rows of nodes, read in tx and marked fresh, to gpus, and brings every
// GPU in gpus up to the live view's latest reading.
func (s *Store) readGPURows(tx *gorm.DB, gpus []GPU, nodes []int64, fresh map[int64]bool) ([]GPU, error) {
	if len(nodes) > 0 {
		read, err := readGPUs(tx, nil, "node_id IN ?", nodes)
		if err != nil {
			return nil, err
		}
		gpus = append(gpus, read...)
		for _, id := range nodes {
			fresh[id] = true
		}
	}
	s.live.overlayGPUs(gpus)
	return gpus, nil
}

// gpusByNode indexes gpus by node and UUID.
func gpusByNode(gpus []GPU) map[int64]map[string]*GPU {
	byNode := map[int64]map[string]*GPU{}
	for i := range gpus {
		g := &gpus[i]
		if byNode[g.NodeID] == nil {
			byNode[g.NodeID] = map[string]*GPU{}
		}
		byNode[g.NodeID][g.UUID] = g
	}
	return byNode
}

// validateGroup checks each job's batch, refusing a bad one in done, and returns the rows of
// the others with the job of each row.
func validateGroup(group []*sampleJob, done []sampleDone, byNode map[int64]map[string]*GPU, issued time.Time) (all []GPUSample, owner []int) {
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
	}
	return all, owner
}

// insertSamples inserts rows, skipping readings already stored, and returns the (gpu, ts)
// keys it inserted: on Postgres in one statement of column arrays (pg_array.go), on SQLite a
// thousand rows to a statement.
func (s *Store) insertSamples(tx *gorm.DB, rows []GPUSample) (map[[2]int64]bool, error) {
	inserted := make(map[[2]int64]bool, len(rows))
	for len(rows) > 0 {
		n := len(rows)
		var q string
		var args []any
		if s.postgres {
			q, args = samplesUnnest(rows)
		} else {
			n = valuesChunk(n)
			q, args = samplesValues(rows[:n])
		}
		res, err := tx.Raw(q+" ON CONFLICT DO NOTHING RETURNING gpu_id, ts", args...).Rows()
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

const insertSamplesInto = "INSERT INTO gpu_samples (gpu_id, ts, memory_used_mib, util_pct, temp_c, power_w) "

// samplesValues is the insert of rows as a VALUES list.
func samplesValues(rows []GPUSample) (string, []any) {
	var sb strings.Builder
	args := make([]any, 0, 6*len(rows))
	sb.WriteString(insertSamplesInto + "VALUES ")
	for i, r := range rows {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("(?,?,?,?,?,?)")
		args = append(args, r.GPUID, r.TS, r.MemoryUsedMiB, r.UtilPct, r.TempC, r.PowerW)
	}
	return sb.String(), args
}

// samplesUnnest is the insert of rows as Postgres column arrays.
func samplesUnnest(rows []GPUSample) (string, []any) {
	cols := make([]pgInts, 6)
	for i := range cols {
		cols[i] = make(pgInts, len(rows))
	}
	for i, r := range rows {
		cols[0][i], cols[1][i], cols[2][i] = r.GPUID, r.TS, r.MemoryUsedMiB
		cols[3][i], cols[4][i], cols[5][i] = int64(r.UtilPct), int64(r.TempC), int64(r.PowerW)
	}
	return insertSamplesInto + "SELECT * FROM unnest(" + strings.Repeat("CAST(? AS BIGINT[]),", 5) + "CAST(? AS BIGINT[]))",
		[]any{cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]}
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

// markNodesSeen sets the nodes' last-seen times (as saveGPUReadings, column arrays on
// Postgres, VALUES lists on SQLite) and brings lost nodes back to ready; it returns how many
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
	const set, where = "UPDATE nodes SET last_seen_at = v.column2 FROM ", " WHERE nodes.id = v.column1"
	if s.postgres {
		at := make(pgTimes, len(ids))
		for i, id := range ids {
			t := seen[id]
			at[i] = &t
		}
		if err := tx.Exec(set+"unnest(CAST(? AS BIGINT[]), CAST(? AS TIMESTAMPTZ[])) AS v(column1, column2)"+where, pgInts(ids), at).Error; err != nil {
			return 0, fmt.Errorf("mark nodes seen: %w", err)
		}
	}
	for rest := ids; len(rest) > 0 && !s.postgres; {
		n := valuesChunk(len(rest))
		var sb strings.Builder
		args := make([]any, 0, 2*n)
		sb.WriteString(set + "(VALUES ")
		for i, id := range rest[:n] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString("(?,?)")
			args = append(args, id, seen[id])
		}
		sb.WriteString(") AS v" + where)
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
