package models

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// ErrBusy is returned (wrapped) when the store is past its capacity: the caller should
// answer 503 and the client retry later.
var ErrBusy = errors.New("busy, try again shortly")

// Overloaded reports whether err means the database or the server is past capacity rather
// than that something is wrong: ErrBusy, a request that ran out of time waiting, SQLite's
// busy or locked, or Postgres refusing connections.
func Overloaded(err error) bool {
	if errors.Is(err, ErrBusy) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
		return true
	}
	var pe *pgconn.PgError
	// 53300 too_many_connections, 57P03 cannot_connect_now.
	return errors.As(err, &pe) && (pe.Code == "53300" || pe.Code == "57P03")
}

// hashSlots bounds the password hashes computed at once: bcrypt takes tens of milliseconds
// of a core, and a burst of logins must leave cores for everything else.
var hashSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// hashWait is how long a login waits for a hashing slot before it is turned away busy.
const hashWait = 2 * time.Second

// withHashSlot runs f holding a hashing slot, or returns ErrBusy after hashWait.
func withHashSlot(ctx context.Context, f func()) error {
	t := time.NewTimer(hashWait)
	defer t.Stop()
	select {
	case hashSlots <- struct{}{}:
	case <-t.C:
		return ErrBusy
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-hashSlots }()
	f()
	return nil
}
