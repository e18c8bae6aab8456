package models

import (
	"context"
	"sync"
	"testing"
)

// TestRunnersCommitGroupsAtOnce: a committer of two runners writes two groups at once (the
// second is taken while the first is still being written), and answers both; one of one
// runner never writes two at once.
func TestRunnersCommitGroupsAtOnce(t *testing.T) {
	for _, runners := range []int{1, 2} {
		var (
			mu             sync.Mutex
			inFlight, most int
			both           = make(chan struct{})
			bothOnce       sync.Once
		)
		c := startGroupCommitter("test", 1, 0, runners, func(group []chan int) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			if inFlight == 2 {
				bothOnce.Do(func() { close(both) })
			}
			mu.Unlock()
			if runners == 2 {
				<-both // the first group waits until the second is being written too
			}
			mu.Lock()
			inFlight--
			mu.Unlock()
			for _, done := range group {
				done <- 1
			}
		})
		jobs := []chan int{make(chan int, 1), make(chan int, 1), make(chan int, 1)}
		for _, done := range jobs {
			if err := c.enqueue(context.Background(), done); err != nil {
				t.Fatal(err)
			}
		}
		for _, done := range jobs {
			if _, err := answer(context.Background(), c, done); err != nil {
				t.Errorf("runners %d: %v", runners, err)
			}
		}
		c.stop()
		if most != runners {
			t.Errorf("%d runners wrote at most %d groups at once, want %d", runners, most, runners)
		}
	}
}
