package models

import (
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

// checkpoints runs SQLite's WAL checkpoints on a connection of its own, beside the writer,
// whose automatic checkpoint is off (sqliteWriter): the flush to disk no longer holds the
// writer. SQLite restarts the WAL from its start once a checkpoint has copied all of it.
type checkpoints struct {
	db       *sql.DB
	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// startCheckpoints opens the checkpoint connection on path and starts its ticks.
func startCheckpoints(path string) (*checkpoints, error) {
	db, err := sql.Open("sqlite3", sqliteDSN(path, ""))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite checkpoints: %w", err)
	}
	c := &checkpoints{db: db, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		tick := time.NewTicker(checkpointEvery)
		defer tick.Stop()
		for {
			select {
			case <-c.quit:
				return
			case <-tick.C:
				// A checkpoint that fails (the disk full) leaves the WAL to the next.
				_, _ = db.Exec("PRAGMA wal_checkpoint(PASSIVE)")
			}
		}
	}()
	return c, nil
}

// stop ends the ticks and closes the connection; the writer's close checkpoints what is left.
func (c *checkpoints) stop() error {
	c.stopOnce.Do(func() { close(c.quit) })
	<-c.done
	return c.db.Close()
}
