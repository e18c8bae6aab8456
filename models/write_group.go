package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Agents' small writes — a task's status report, the confirmation that tasks run — come in
// waves: a scheduling pass starts a hundred tasks at once, and their ends and confirmations
// arrive together. Each in a transaction of its own, they queued for the one writer and
// cost a BEGIN, a COMMIT and a hand-over of the writer each; at 100 task ends a second the
// writer could not keep up, and every write behind them (samples, submits) waited up to a
// second. They are now run one after another by one goroutine in one transaction per
// group, each in a savepoint of its own: a write that fails is rolled back alone and
// answered with its own error, and the others commit (docs/decisions.md, "The writer in
// turns, and agents' writes committed together").

// maxWriteGroup bounds how many writes one group takes.
const maxWriteGroup = 256

// groupedWrite is one write waiting for the next group.
type groupedWrite struct {
	ctx  context.Context
	fn   func(tx *gorm.DB) error
	done chan error
}

// startWriteCommitter starts the group commit of grouped writes: a lone write is committed
// at once, and a crowd of them shares its transactions. On Postgres four groups are written
// at once: one at a time, each a statement's round trips after another, a status report
// waited 250–420 ms at p50 behind the groups before it at 4,096 agents and 100 submits a
// second, with the database mostly waiting on the client. An agent sends its next report
// once the last is answered, so a node's reports still land in order.
func startWriteCommitter(s *Store) *groupCommitter[*groupedWrite] {
	return startGroupCommitter("write", maxWriteGroup, 0, parallelOn(s, 4), s.commitWrites)
}

// inWriteGroup runs fn in the next group's transaction, in a savepoint of its own, and
// returns fn's error, or the group's when the group could not commit and fn alone failed
// too. fn runs under the group's context: once its group has begun, a write is answered
// even when ctx ends meanwhile; a write whose ctx ended before its group began is not run.
func (s *Store) inWriteGroup(ctx context.Context, fn func(tx *gorm.DB) error) error {
	j := &groupedWrite{ctx: ctx, fn: fn, done: make(chan error, 1)}
	if err := s.writes.enqueue(ctx, j); err != nil {
		return err
	}
	err, aerr := answer(context.WithoutCancel(ctx), s.writes, j.done)
	if aerr != nil {
		return aerr
	}
	return err
}

// commitWrites runs a group of writes and answers each: in one transaction, on SQLite while it
// stays within writeTurn, then in the next (the writer's turn given up between, so that the
// writes queued meanwhile — samples, submits — go before the rest). When a transaction itself fails
// (a lost connection), each write of several it ran is run again in a transaction of its
// own, so that each gets the answer it would have got alone.
func (s *Store) commitWrites(group []*groupedWrite) {
	for len(group) > 0 {
		ran, errs, gerr := s.runWrites(group)
		for i, j := range group[:ran] {
			err := gerr
			if err != nil && ran > 1 {
				var alone []error
				_, alone, err = s.runWrites(group[i : i+1])
				errs[i] = alone[0]
			}
			if err != nil {
				errs[i] = fmt.Errorf("models: %w", err)
			}
			j.done <- errs[i]
		}
		group = group[ran:]
	}
}

// writeTurn is how long one transaction of grouped writes goes on taking the group's next
// write. At 4,096 agents and 100 submits a second a group of task ends held the one writer
// up to 44–79 ms (p99, max), and each sample commit and submit that came meanwhile waited
// behind it. Postgres has no one writer: there a group is one transaction, as more of them
// would only cost more commits (at 4,096 agents a status report's p50 went 247 → 571 ms).
const writeTurn = 5 * time.Millisecond

// runWrites runs the first writes of group in one transaction, each in a savepoint, on SQLite
// until writeTurn has passed (one at least); ran is how many it ran, errs their own errors, err the
// transaction's (then nothing of any was written).
func (s *Store) runWrites(group []*groupedWrite) (ran int, errs []error, err error) {
	errs = make([]error, len(group))
	ran = len(group)
	err = s.db.WithContext(context.Background()).Transaction(func(tx *gorm.DB) error {
		start := time.Now()
		for i, j := range group {
			if i > 0 && !s.postgres && time.Since(start) >= writeTurn {
				ran = i
				break
			}
			if err := j.ctx.Err(); err != nil {
				errs[i] = err
				continue
			}
			errs[i] = inSavepoint(tx, j.fn)
		}
		return nil
	})
	return ran, errs[:ran], err
}

// inSavepoint runs fn in a savepoint of tx (GORM's nested transaction), rolled back when fn
// fails or panics; a panic is fn's error, so that one write cannot end the committer.
func inSavepoint(tx *gorm.DB, fn func(tx *gorm.DB) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("models: a grouped write panicked: %v", r)
		}
	}()
	return tx.Transaction(fn)
}
