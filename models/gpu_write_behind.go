package models

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// Each GPU's latest reading and its idle and saturation timers live in the live view
// (live_view.go) as soon as a sample commit stores the samples; the GPU's row learns them
// here, behind, once per interval and when the store closes. The samples themselves are
// committed before an agent is answered, as ever; what a crash may lose is at most one
// interval of the rows' latest readings, which the next reading of each GPU sets again
// (an idle or saturation timer that began within that interval begins again at that
// reading). Every read of GPUs in this process overlays the live view, so it sees a reading
// at once; another replica reads the rows, at most one interval behind (docs/decisions.md,
// "GPU readings written behind").

// DefaultWriteBehind is how often the GPUs' latest readings are written to their rows when
// Options.WriteBehind is zero: within the shortest interval an agent samples at.
const DefaultWriteBehind = time.Second

// readingWriter writes the live view's new readings to the GPUs' rows every interval, and
// once more when stopped.
type readingWriter struct {
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	// last is the error of the final write, for Close.
	last error
}

func startReadingWriter(s *Store, every time.Duration) *readingWriter {
	w := &readingWriter{quit: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(w.stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-w.quit:
				w.last = s.writeReadings(context.Background())
				return
			case <-tick.C:
				_ = s.writeReadings(context.Background()) // what failed is written by the next tick
			}
		}
	}()
	return w
}

// stop writes what is left and ends the writer; it returns the last write's error.
func (w *readingWriter) stop() error {
	w.stopOnce.Do(func() { close(w.quit) })
	<-w.stopped
	return w.last
}

// writeReadings writes the readings the rows do not have yet, on SQLite readingsPerTurn GPUs
// a transaction. A write that fails leaves what it did not write to the next.
func (s *Store) writeReadings(ctx context.Context) error {
	gpus := s.live.takeDirty()
	for len(gpus) > 0 {
		n := len(gpus)
		if !s.postgres {
			n = min(n, readingsPerTurn)
		}
		err := s.db.WithContext(quiet(ctx)).Transaction(func(tx *gorm.DB) error {
			if s.postgres { // as the sample commits: the next reading sets a lost one again
				if err := tx.Exec("SET LOCAL synchronous_commit = off").Error; err != nil {
					return err
				}
			}
			return s.saveGPUReadings(tx, gpus[:n])
		})
		if err != nil {
			s.live.redirty(gpus)
			return fmt.Errorf("models: write gpu readings: %w", err)
		}
		gpus = gpus[n:]
	}
	return nil
}

// readingsPerTurn is how many GPUs' readings one transaction writes on SQLite, where each
// transaction holds the one writer: at 4,096 agents a second's readings (about 3,300 GPUs) in
// one transaction held it 23 ms on average and up to 57 ms, and every sample commit and submit
// that came meanwhile waited behind it. In turns of 512 each holds it a few ms, and the
// writes that queued go between (the writer's turns are taken in order). Postgres, which has
// no one writer, takes them in one statement.
const readingsPerTurn = 512

// saveGPUReadings writes the GPUs' latest readings and timers: on Postgres in one statement
// of column arrays, on SQLite up to 1,024 GPUs to an UPDATE … FROM VALUES (valuesChunk). A row that holds
// a newer reading (another replica's) keeps it, and a removed node's GPUs are not written.
func (s *Store) saveGPUReadings(tx *gorm.DB, gpus []GPU) error {
	// Columns by VALUES's names (column1 …), which SQLite gives and the arrays are named.
	const set = "UPDATE gpus SET memory_used_mib = v.column2, util_pct = v.column3, temp_c = v.column4, " +
		"power_w = v.column5, sampled_at = v.column6, idle_since = v.column7, saturated_since = v.column8 FROM "
	const where = " WHERE gpus.id = v.column1 AND (gpus.sampled_at IS NULL OR gpus.sampled_at < v.column6)" +
		" AND EXISTS (SELECT 1 FROM nodes WHERE nodes.id = gpus.node_id AND nodes.state <> '" + NodeRemoved + "')"
	if s.postgres {
		nums := make([]pgInts, 5)
		times := make([]pgTimes, 3)
		for i := range nums {
			nums[i] = make(pgInts, len(gpus))
		}
		for i := range times {
			times[i] = make(pgTimes, len(gpus))
		}
		for i, g := range gpus {
			nums[0][i], nums[1][i], nums[2][i], nums[3][i], nums[4][i] = g.ID, g.MemoryUsedMiB, int64(g.UtilPct), int64(g.TempC), int64(g.PowerW)
			times[0][i], times[1][i], times[2][i] = g.SampledAt, g.IdleSince, g.SaturatedSince
		}
		q := set + "unnest(" + strings.Repeat("CAST(? AS BIGINT[]),", 5) + strings.Repeat("CAST(? AS TIMESTAMPTZ[]),", 2) + "CAST(? AS TIMESTAMPTZ[])) AS v(column1, column2, column3, column4, column5, column6, column7, column8)" + where
		if err := tx.Exec(q, nums[0], nums[1], nums[2], nums[3], nums[4], times[0], times[1], times[2]).Error; err != nil {
			return fmt.Errorf("update gpu readings: %w", err)
		}
		return nil
	}
	for len(gpus) > 0 {
		n := valuesChunk(len(gpus))
		var sb strings.Builder
		args := make([]any, 0, 8*n)
		sb.WriteString(set + "(VALUES ")
		for i, g := range gpus[:n] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString("(?,?,?,?,?,?,?,?)")
			args = append(args, g.ID, g.MemoryUsedMiB, g.UtilPct, g.TempC, g.PowerW, g.SampledAt, g.IdleSince, g.SaturatedSince)
		}
		sb.WriteString(") AS v" + where)
		if err := tx.Exec(sb.String(), args...).Error; err != nil {
			return fmt.Errorf("update gpu readings: %w", err)
		}
		gpus = gpus[n:]
	}
	return nil
}
