package models

import (
	"context"
	"errors"
	"sync"
	"time"
)

// groupCommitter writes jobs in groups: a runner takes every job that arrived while its
// previous group was written and hands them to commit together, so that many callers at once
// cost a few write transactions, not one each. Samples (sample_commit.go), submits
// (task_commit.go) and agents' small writes (write_group.go) are written through one each;
// commit answers every job of its group. One runner writes one group at a time; several
// (on Postgres, where transactions on different rows do not wait for each other) write
// as many at once, each its own group.
type groupCommitter[J any] struct {
	what     string // what it commits, for its errors
	max      int    // the most jobs in one group
	gap      time.Duration
	commit   func([]J)
	jobs     chan J
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	runners  sync.WaitGroup
}

// startGroupCommitter starts a committer of groups of at most size jobs with runners runners,
// each of whose groups begins at least gap after its previous one began (0: as soon as the
// previous one is written).
func startGroupCommitter[J any](what string, size int, gap time.Duration, runners int, commit func([]J)) *groupCommitter[J] {
	c := &groupCommitter[J]{what: what, max: size, gap: gap, commit: commit,
		jobs: make(chan J, size), quit: make(chan struct{}), stopped: make(chan struct{})}
	for range max(runners, 1) {
		c.runners.Go(c.run)
	}
	go func() {
		c.runners.Wait()
		close(c.stopped)
	}()
	return c
}

// parallelOn is the runners of a committer of s: n on Postgres; one on SQLite, whose one
// writer takes one transaction at a time whatever the runners.
func parallelOn(s *Store, n int) int {
	if s.postgres {
		return n
	}
	return 1
}

// run commits groups until stop. A lone job is committed at once; under a stream of jobs the
// next group waits out the gap and takes everything that arrived meanwhile.
func (c *groupCommitter[J]) run() {
	var last time.Time
	for {
		var group []J
		select {
		case <-c.quit:
			return
		case j := <-c.jobs:
			group = append(group, j)
		}
		if wait := c.gap - time.Since(last); wait > 0 {
			c.gather(&group, wait)
		}
		last = time.Now()
	more:
		for len(group) < c.max {
			select {
			case j := <-c.jobs:
				group = append(group, j)
			default:
				break more
			}
		}
		c.commit(group)
	}
}

// gather adds the jobs that arrive within wait to group, up to max.
func (c *groupCommitter[J]) gather(group *[]J, wait time.Duration) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for len(*group) < c.max {
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

// stop ends the committer after the groups in progress; later calls do nothing.
func (c *groupCommitter[J]) stop() {
	c.stopOnce.Do(func() { close(c.quit) })
	<-c.stopped
}

// enqueue queues j for a group, unless the committer stopped or ctx ended first.
func (c *groupCommitter[J]) enqueue(ctx context.Context, j J) error {
	select {
	case c.jobs <- j:
		return nil
	case <-c.quit:
		return errors.New("models: " + c.what + ": store closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// answer waits for the answer to a job c took, sent on done, until ctx ends: a job still
// queued when c stopped is answered with an error.
func answer[J, R any](ctx context.Context, c *groupCommitter[J], done <-chan R) (R, error) {
	var zero R
	select {
	case d := <-done:
		return d, nil
	case <-c.stopped:
		select {
		case d := <-done: // in the last group
			return d, nil
		default: // closed before its group was taken
			return zero, errors.New("models: " + c.what + ": store closed")
		}
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
