package models

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// checkpointEvery is how often the WAL of a SQLite database is written back into its file.
// Between two checkpoints the WAL grows by what was committed meanwhile (a few MiB a second
// at 4,096 agents); a checkpoint in WAL mode waits for no reader or writer (PASSIVE): it
// copies what no reader still needs, and the next one copies the rest.
const checkpointEvery = time.Second

// restartFrames is the WAL's length (in pages) past which a checkpoint also starts it over.
// The WAL starts over only at a write that finds all of it copied back and no reader still
// in it; beside a writer that never stops, every write found some pages of the one before
// not yet copied, and the WAL reached 530 MB in a 60-s run at 4,096 agents (11–19 MB with
// the restart; SQLite's own checkpoint at a commit kept it near 9 MB). So past this length
// the checkpoint takes the writer's turn, copies what the last one left (a second of
// writes), waits up to restartWait for the readers still in the WAL, and restarts it: the
// next write begins at the WAL's start (RESTART, which leaves the file its length; TRUNCATE
// also cut the file to nothing, and held the writer 20 ms a time at 4,096 agents against
// 6 ms, the file grown again page by page after it).
const restartFrames = 8192

// walKeep is the most of the WAL's file kept when it starts over (the writer's
// journal_size_limit): twice the restart length, so the file stays near one restart's
// writes (32 MiB at 4 KiB pages) and a spell of restarts held up by readers leaves it
// longer only until the next.
const walKeep = 2 * restartFrames * 4096

// restartWait is how long a restarting checkpoint waits for the readers still reading the
// WAL (the busy timeout of its connection); the writes queued meanwhile wait too. A reader
// that takes longer (the board's snapshot at 32,768 GPUs, a month's bills) leaves the
// restart to a later tick.
const restartWait = 10 * time.Millisecond

// sqliteCheckpoints is the driver of the checkpoint connection: SQLite's, with a busy
// timeout of restartWait.
const sqliteCheckpoints = "sqlite3-checkpoints"

// checkpoints runs SQLite's WAL checkpoints on a connection of its own, beside the writer,
// whose automatic checkpoint is off (sqliteWriter): the flush to disk no longer holds the
// writer, but for the rare restart.
type checkpoints struct {
	db       *sql.DB
	turn     func(ctx context.Context) (func(), error)
	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// startCheckpoints opens the checkpoint connection on path and starts its ticks; turn takes
// the writer's turn.
func startCheckpoints(path string, turn func(ctx context.Context) (func(), error)) (*checkpoints, error) {
	db, err := sql.Open(sqliteCheckpoints, sqliteDSN(path, readerCacheKiB, ""))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite checkpoints: %w", err)
	}
	c := &checkpoints{db: db, turn: turn, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		tick := time.NewTicker(checkpointEvery)
		defer tick.Stop()
		for {
			select {
			case <-c.quit:
				return
			case <-tick.C:
				c.checkpoint(restartFrames)
			}
		}
	}()
	return c, nil
}

// checkpoint copies the WAL back beside the writer, and past restartAt pages (restartFrames;
// fewer in tests) restarts it in the writer's turn. One that fails (the disk full, a
// reader slower than restartWait) leaves the WAL to the next.
func (c *checkpoints) checkpoint(restartAt int) {
	var busy, frames, copied int
	if err := c.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil || frames < restartAt {
		return
	}
	done, err := c.turn(context.Background())
	if err != nil {
		return
	}
	defer done()
	_, _ = c.db.Exec("PRAGMA wal_checkpoint(RESTART)")
}

// stop ends the ticks and closes the connection; the writer's close checkpoints what is left.
func (c *checkpoints) stop() error {
	c.stopOnce.Do(func() { close(c.quit) })
	<-c.done
	return c.db.Close()
}
