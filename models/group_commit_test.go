package models

import (
	"context"
	"testing"
	"time"
)

// TestRunnersCommitGroupsAtOnce: a committer of two runners writes two groups at once (the
// second is taken while the first is still being written), and answers both; one of one
// runner writes them one after the other.
func TestRunnersCommitGroupsAtOnce(t *testing.T) {
	for _, runners := range []int{1, 2} {
		entered := make(chan int, 2)
		release := make(chan struct{})
		c := startGroupCommitter("test", 1, 0, runners, func(group []chan int) {
			entered <- len(group)
			<-release
			for _, done := range group {
				done <- 1
			}
		})
		first, second := make(chan int, 1), make(chan int, 1)
		for _, done := range []chan int{first, second} {
			if err := c.enqueue(context.Background(), done); err != nil {
				t.Fatal(err)
			}
		}
		<-entered // the first group is being written
		select {
		case <-entered:
			if runners == 1 {
				t.Errorf("one runner began a second group while the first was written")
			}
		case <-time.After(200 * time.Millisecond): // a bound on a wrong answer, not a wait for the right one
			if runners == 2 {
				t.Errorf("two runners: the second group waited for the first")
			}
		}
		close(release)
		for _, done := range []chan int{first, second} {
			if _, err := answer(context.Background(), c, done); err != nil {
				t.Errorf("runners %d: %v", runners, err)
			}
		}
		c.stop()
	}
}
