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

// Limits at which a resource counts as run out: the machine's run queue (the 1-minute load
// average) at its cores, this process's CPU at 90 % of them, goroutines waiting on locks a
// tenth of the run's wall time, or a tenth of a request on average waiting for a database
// connection.
const (
	cpuLimit  = 0.9
	waitLimit = 0.1
)

// Nearest names the resource that ran out first, with its share of its limit: the first of
// the machine's CPU, the process's CPU, locks and the database pool at or past its limit, in
// that order (a starved or busy CPU makes every queue behind it grow, so it comes first); when
// none is, the one nearest its limit.
func (u Use) Nearest() (string, float64) {
	wall := float64(u.Elapsed)
	if wall <= 0 || u.Cores <= 0 {
		return "", 0
	}
	type res struct {
		name  string
		score float64
	}
	all := []res{
		{fmt.Sprintf("the machine's CPU (load average %.1f on %d cores: other processes)", u.LoadAvg, u.Cores), u.LoadAvg / float64(u.Cores)},
		{"CPU", u.CPUShare() / cpuLimit},
		{"a lock (sync.Mutex waits)", float64(u.MutexWait) / wall / waitLimit},
	}
	if u.DBKnown {
		all = append(all, res{"the database pool (waits for a connection)", float64(u.DBWait) / wall / waitLimit})
	}
	best := all[0]
	for _, r := range all {
		if r.score >= 1 {
			return r.name, r.score
		}
		if r.score > best.score {
			best = r
		}
	}
	return best.name, best.score
}
