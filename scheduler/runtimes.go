package scheduler

import (
	"context"
	"slices"
	"sync"
	"time"

	"kashi/models"
)

// Runtimes are how long ended tasks ran against what they estimated: each one's ratio of its
// runtime to its estimated runtime, sorted, by project, and every project's under "". The
// ETAs' expected runtimes and ends read them (see Decide); placements and reservations do
// not.
type Runtimes map[string][]float64

// RuntimeSample is one ended task: its project, estimated runtime and actual runtime.
type RuntimeSample struct {
	Project  string
	Est, Ran time.Duration
}

// minRuntimeSamples is how many ended tasks a project needs before its own ratios are
// read; with fewer, every project's are, and with fewer still, estimates are taken as
// they are.
const minRuntimeSamples = 10

// NewRuntimes sorts the ratios of the samples with an estimate by project.
func NewRuntimes(samples []RuntimeSample) Runtimes {
	r := Runtimes{}
	for _, s := range samples {
		if s.Est <= 0 || s.Ran < 0 {
			continue
		}
		x := float64(s.Ran) / float64(s.Est)
		r[s.Project] = append(r[s.Project], x)
		if s.Project != "" {
			r[""] = append(r[""], x)
		}
	}
	for _, xs := range r {
		slices.Sort(xs)
	}
	return r
}

// Add adds one sample, keeping the ratios sorted.
func (r Runtimes) Add(s RuntimeSample) {
	if s.Est <= 0 || s.Ran < 0 {
		return
	}
	x := float64(s.Ran) / float64(s.Est)
	for _, p := range []string{s.Project, ""} {
		xs := r[p]
		i, _ := slices.BinarySearch(xs, x)
		r[p] = slices.Insert(xs, i, x)
		if p == "" {
			break
		}
	}
}

// of is the ratios that calibrate project's tasks; nil for none.
func (r Runtimes) of(project string) []float64 {
	if xs := r[project]; len(xs) >= minRuntimeSamples {
		return xs
	}
	if xs := r[""]; len(xs) >= minRuntimeSamples {
		return xs
	}
	return nil
}

// median is the median of sorted xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// etaRuntime is a pending task's expected runtime for the ETAs: its estimate scaled by the
// median ratio of its project's ended tasks, at most its max runtime; without an estimate,
// its max runtime (zero: none).
func (d *decider) etaRuntime(project string, est, maxRun time.Duration) time.Duration {
	if xs := d.snap.Runtimes.of(project); est > 0 && xs != nil {
		est = time.Duration(float64(est) * median(xs))
	}
	d50, _ := durations(est, maxRun)
	return d50
}

// etaEnd is a running task's expected end for the ETAs, as an offset from now: its start
// plus its estimate scaled by the median of its project's ratios that are above what it has
// run so far (it has outlived the others), at most its max runtime. Once it has outlived
// every ratio, or without ratios its estimate, its latest end is the best guess (see
// runningEnds). A task whose idle cards reclaim would stop sooner ends then (ReclaimAt).
func (d *decider) etaEnd(r *Running) int64 {
	end := d.runEnd(r)
	if !r.ReclaimAt.IsZero() {
		end = min(end, max(int64(r.ReclaimAt.Sub(d.now)), 0))
	}
	return end
}

// runEnd is a running task's expected end by its runtime alone (see etaEnd).
func (d *decider) runEnd(r *Running) int64 {
	xs := d.snap.Runtimes.of(r.Project)
	if r.EstRuntime <= 0 || xs == nil {
		end50, _ := runningEnds(r, d.now)
		return end50
	}
	ran := float64(d.now.Sub(r.StartedAt)) / float64(r.EstRuntime)
	i, _ := slices.BinarySearch(xs, ran)
	for i < len(xs) && xs[i] <= ran {
		i++
	}
	c := *r
	if i < len(xs) {
		c.EstRuntime = time.Duration(float64(r.EstRuntime) * median(xs[i:]))
	} else {
		c.EstRuntime = r.MaxRuntime // outlived them all
	}
	end50, _ := runningEnds(&c, d.now)
	return end50
}

// runtimesCache keeps the Runtimes of the last RuntimesWindow for runtimesRefresh of clock
// time: they move slowly, and reading a week of tasks on every tick would cost more than
// the tick.
type runtimesCache struct {
	mu sync.Mutex
	at time.Time
	r  Runtimes
}

// RuntimesWindow is how far back the loop reads ended tasks for Runtimes.
const RuntimesWindow = 7 * 24 * time.Hour

// runtimesRefresh is how long, in clock time, the loop reuses its Runtimes.
const runtimesRefresh = 10 * time.Minute

// runtimes reads the tasks submitted in the last RuntimesWindow that ran and ended into
// Runtimes, at most once per runtimesRefresh.
func (l *Loop) runtimes(ctx context.Context, now time.Time) (Runtimes, error) {
	c := &l.runs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.r != nil && !now.Before(c.at) && now.Sub(c.at) < runtimesRefresh {
		return c.r, nil
	}
	spans, err := l.store.TaskSpans(ctx, now.Add(-RuntimesWindow), now)
	if err != nil {
		return nil, err
	}
	samples := make([]RuntimeSample, 0, len(spans))
	for _, t := range spans {
		if t.State == models.TaskReclaimed {
			continue // idle reclaim's stops are forecast on their own (Running.ReclaimAt)
		}
		samples = append(samples, RuntimeSample{Project: t.Project, Est: EstRuntime(t.EstGPUHours, t.GPUs),
			Ran: t.EndedAt.Sub(t.StartedAt)})
	}
	c.r, c.at = NewRuntimes(samples), now
	return c.r, nil
}
