package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// maxSubmitGroup bounds how many submits one group commit takes (a task is a few dozen
// columns: a group's insert stays far under the databases' limits on a statement's values).
const maxSubmitGroup = 128

// submitJob is one submit waiting for the next group commit of submits.
type submitJob struct {
	ctx  context.Context
	nt   NewTask
	lim  TaskLimits
	now  time.Time
	done chan submitDone
}

// submitDone is what a group commit answers one submit.
type submitDone struct {
	t       Task
	created bool
	err     error
}

// startSubmitCommitter starts the group commit of submits: each group begins as soon as the
// previous one is written, and takes every submit that arrived meanwhile, so a lone submit
// waits for nothing and a crowd of them shares its transactions.
func startSubmitCommitter(s *Store) *groupCommitter[*submitJob] {
	return startGroupCommitter("create task", maxSubmitGroup, 0, 1, s.commitSubmits)
}

// commitSubmits writes a group of submits in one transaction and answers each. A submit its
// checks refuse is answered with its own error and the others stand. When the transaction
// fails (two submits with one Idempotency-Key, a lost connection), each submit is written
// again in a transaction of its own, so that each gets the answer it would have got alone.
func (s *Store) commitSubmits(group []*submitJob) {
	done, err := s.writeSubmits(group)
	for i, j := range group {
		if err != nil {
			done[i] = s.submitAlone(j, err, len(group) > 1)
		}
		j.done <- done[i]
	}
}

// writeSubmits checks and writes a group of submits in one transaction: every check reads
// inside it, so what it checked is what its write commits beside, on SQLite (one writer)
// and on Postgres alike. A submit refused by its checks, or whose caller gave up before the
// group began, has its error in done; err is the transaction's, and then nothing is written.
func (s *Store) writeSubmits(group []*submitJob) (done []submitDone, err error) {
	done = make([]submitDone, len(group))
	var (
		tasks []Task
		owner []int // the job of each task
	)
	// A new task holds no GPU: the board's snapshot stays as it is until it is placed.
	err = s.db.WithContext(quiet(context.Background())).Transaction(func(tx *gorm.DB) error {
		tasks, owner = tasks[:0], owner[:0]
		reads := newSubmitReads(tx)
		for i, j := range group {
			if err := j.ctx.Err(); err != nil {
				done[i].err = err
				continue
			}
			var t Task
			if err := s.taskFromNew(reads, j.nt, j.lim, j.now, &t); err != nil {
				if AllFieldErrors(err) == nil {
					return err
				}
				done[i].err = err
				continue
			}
			tasks, owner = append(tasks, t), append(owner, i)
		}
		if len(tasks) == 0 {
			return nil
		}
		if err := tx.Create(&tasks).Error; err != nil {
			return err
		}
		events := make([]TaskEvent, len(tasks))
		for k, t := range tasks {
			events[k] = TaskEvent{TaskID: t.ID, At: t.SubmittedAt, To: t.State, Reason: "submitted by " + t.Owner}
		}
		if err := tx.Create(&events).Error; err != nil {
			return err
		}
		for k := range tasks {
			if err := createReplicas(tx, &tasks[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return done, err
	}
	for k, i := range owner {
		done[i] = submitDone{t: tasks[k], created: true}
	}
	return done, nil
}

// submitAlone answers a submit whose group's transaction failed with err: written again in
// a transaction of its own when the group had others. A submit that failed alone and
// carries an Idempotency-Key lost a race with another of the same key, whose task it reads.
func (s *Store) submitAlone(j *submitJob, err error, others bool) submitDone {
	if others {
		done, aerr := s.writeSubmits([]*submitJob{j})
		if aerr == nil {
			return done[0]
		}
		err = aerr
	}
	if j.nt.IdempotencyKey != "" {
		if t, found, ferr := s.taskByKey(s.db.WithContext(quiet(context.Background())), j.nt); found || ferr != nil {
			return submitDone{t: t, err: ferr}
		}
	}
	return submitDone{err: fmt.Errorf("models: create task: %w", err)}
}
