package models

import (
	"context"

	"gorm.io/gorm"
)

// The Store counts the writes that may change what the board shows, so that the board's
// snapshot of nodes, GPUs and holders is rebuilt only after such a change. Sample ingestion
// marks its context quiet: the readings it writes reach the board through the live view.

// quietKey marks a context whose writes do not change the board's structure.
type quietKey struct{}

// quiet returns ctx marked so that its writes do not count as changes.
func quiet(ctx context.Context) context.Context { return context.WithValue(ctx, quietKey{}, true) }

// changed counts a write made under ctx unless ctx is quiet.
func (s *Store) changed(ctx context.Context) {
	if ctx == nil || ctx.Value(quietKey{}) == nil {
		s.gen.Add(1)
		s.pokeAssignWatch() // a change to a node's assignments is read at once
	}
}

// committed counts a transaction's commit, and forgets who may do what when it wrote one of
// its tables (auth_cache.go).
func (s *Store) committed(ctx context.Context, auth bool) {
	s.changed(ctx)
	if auth {
		s.auth.forget()
	}
}

// countChanges registers callbacks that count every create, update, delete and raw write,
// and forget the cached callers after a write to their tables.
// A write inside a transaction counts again when the transaction commits (notifyTx), so a
// snapshot taken between the statement and the commit is not kept.
func (s *Store) countChanges(db *gorm.DB) error {
	after := func(db *gorm.DB) {
		if db.Error != nil {
			return
		}
		s.changed(db.Statement.Context)
		if touchesAuth(db.Statement) {
			// Forgotten now, and again when a transaction commits: a read between the
			// statement and the commit finds the old rows and must not be kept.
			s.auth.forget()
			if tx, ok := db.Statement.ConnPool.(*notifyTx); ok {
				tx.auth = true
			}
		}
	}
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("kashi:changed", after),
		cb.Update().After("gorm:update").Register("kashi:changed", after),
		cb.Delete().After("gorm:delete").Register("kashi:changed", after),
		cb.Raw().After("gorm:raw").Register("kashi:changed", after),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}
