package models

import (
	"context"
	"slices"
	"strings"

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

// forgets is what a write makes this process forget: who may do what (auth_cache.go) and
// the fleet's nodes and cards (fleet_cache.go).
type forgets struct{ auth, fleet bool }

// writeForgets is what a write statement makes forget: who may do what when it names one of
// authTables, the fleet when it writes one of fleetTables. Quiet writes forget nothing (the
// sample commits, whose writes of a node's state or a card's unmanaged use forget the fleet
// themselves).
func writeForgets(st *gorm.Statement) forgets {
	if st.Context != nil && st.Context.Value(quietKey{}) != nil {
		return forgets{}
	}
	t := writeTarget(st)
	return forgets{auth: touchesAuth(st), fleet: t == "?" || slices.Contains(fleetTables, t)}
}

// forget drops what f names.
func (s *Store) forget(f forgets) {
	if f.auth {
		s.auth.forget()
	}
	if f.fleet {
		s.fleet.forget()
	}
}

// committed counts a transaction's commit, and forgets what its statements wrote (forgets).
func (s *Store) committed(ctx context.Context, f forgets) {
	s.changed(ctx)
	s.forget(f)
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
		// Forgotten now, and again when a transaction commits: a read between the statement
		// and the commit finds the old rows and must not be kept.
		f := writeForgets(db.Statement)
		s.forget(f)
		if tx, ok := db.Statement.ConnPool.(*notifyTx); ok {
			tx.forget.auth = tx.forget.auth || f.auth
			tx.forget.fleet = tx.forget.fleet || f.fleet
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

// writeTarget is the table a write statement writes: GORM's, or the name after UPDATE,
// INSERT … INTO or DELETE FROM in a raw statement; "" for a statement that writes no table (a
// savepoint, its release or rollback, a SET); "?" when a raw statement names none of them (a
// conservative answer: such a statement forgets what any table would).
func writeTarget(st *gorm.Statement) string {
	if st.Table != "" {
		return st.Table
	}
	words := strings.Fields(st.SQL.String())
	if len(words) > 0 && slices.Contains([]string{"SAVEPOINT", "RELEASE", "ROLLBACK", "SET"}, strings.ToUpper(words[0])) {
		return ""
	}
	for i := 0; i+1 < len(words); i++ {
		switch strings.ToUpper(words[i]) {
		case "UPDATE", "INTO":
			return strings.ToLower(strings.Trim(words[i+1], `"'`+"`("))
		case "DELETE":
			if i+2 < len(words) && strings.EqualFold(words[i+1], "FROM") {
				return strings.ToLower(strings.Trim(words[i+2], `"'`+"`("))
			}
		}
	}
	return "?"
}
