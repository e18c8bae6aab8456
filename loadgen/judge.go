package loadgen

import (
	"fmt"
	"time"
)

// Targets are what a step must hold (issue #37's): p99 latencies of ingest, board, submit
// and a task's way to its agent, peak RSS, and no errors.
type Targets struct {
	Ingest, Board, Submit, Assign time.Duration
	RSSMiB                        int
}

// IssueTargets are the issue's: ingest 50 ms, board 150 ms, submit 100 ms, a task at its
// agent within 1 s, 512 MiB.
var IssueTargets = Targets{Ingest: 50 * time.Millisecond, Board: 150 * time.Millisecond, Submit: 100 * time.Millisecond,
	Assign: time.Second, RSSMiB: 512}

// Missed names the first target the run missed, in the order errors, ingest, board, submit,
// assign, memory; "" when it held them all.
func (t Targets) Missed(rp *Report) string {
	if n := rp.Errors(); n > 0 {
		return fmt.Sprintf("%d errors", n)
	}
	for _, c := range []struct {
		kind string
		max  time.Duration
	}{{KindIngest, t.Ingest}, {KindBoard, t.Board}, {KindSubmit, t.Submit}, {KindAssign, t.Assign}} {
		if k, ok := rp.Kinds[c.kind]; ok && k.P99 > c.max {
			return fmt.Sprintf("%s p99 %s > %s", c.kind, ms(k.P99), ms(c.max))
		}
	}
	if rp.PeakRSSMiB > t.RSSMiB {
		return fmt.Sprintf("peak RSS %d MiB > %d MiB", rp.PeakRSSMiB, t.RSSMiB)
	}
	return ""
}

// Limits at which a resource counts as run out: the cores 90 % busy, goroutines waiting on
// locks or requests waiting for a database connection a tenth of the run's wall time.
const (
	cpuLimit  = 0.9
	waitLimit = 0.1
)

// Nearest names the resource nearest its limit, with its share of that limit (1 or more:
// it ran out).
func (u Use) Nearest() (string, float64) {
	wall := float64(u.Elapsed)
	if wall <= 0 {
		return "", 0
	}
	name, score := "CPU", u.CPUShare()/cpuLimit
	if s := float64(u.MutexWait) / wall / waitLimit; s > score {
		name, score = "a lock (sync.Mutex waits)", s
	}
	if s := float64(u.DBWait) / wall / waitLimit; u.DBKnown && s > score {
		name, score = "the database pool (waits for a connection)", s
	}
	return name, score
}
