package replay

import (
	"errors"
	"slices"
	"sync"
	"time"
)

// ErrBusy is Submit's answer while as many sweeps run as the Runner allows.
var ErrBusy = errors.New("replay: as many sweeps as allowed are running")

// RunnerConfig bounds a Runner.
type RunnerConfig struct {
	// Running is how many sweeps may run at once; less than 1 means 1.
	Running int
	// Workers is how many replays one sweep runs at once (Sweep's workers).
	Workers int
	// Kept is how many jobs are kept, the newest (every running one whatever the count);
	// Keep how long a finished job is kept after it was submitted. Zero means no bound.
	Kept int
	Keep time.Duration
}

// SweepJob is a sweep to run in the background: Trace replayed under each of Settings
// applied to Base.
type SweepJob struct {
	Trace    *Trace
	Base     Options
	Settings []Setting
}

// JobState is a sweep job as it stands.
type JobState struct {
	ID int64
	// Base and Settings are the job's; Jobs is how many jobs its trace has.
	Base     Options
	Settings []Setting
	Jobs     int
	// Done is how many settings have been replayed. Once Finished, the outcome is Rows, or
	// Err.
	Done     int
	Finished bool
	Rows     []SweepRow
	Err      error
}

// Runner runs sweeps as background jobs, a bounded number at once, and keeps their states
// for a while: the caller submits a job and reads its state by id. Time is passed in; the
// runner keeps its jobs in memory only (a restart forgets them).
type Runner struct {
	cfg   RunnerConfig
	sweep func(tr *Trace, base Options, settings []Setting, workers int, progress func(done int)) ([]SweepRow, error)

	mu   sync.Mutex
	next int64
	jobs []*sweepJob // oldest first
}

// sweepJob is a job and when it was submitted; Runner.mu guards it.
type sweepJob struct {
	state     JobState
	submitted time.Time
}

// NewRunner returns a Runner with no jobs.
func NewRunner(cfg RunnerConfig) *Runner {
	cfg.Running = max(cfg.Running, 1)
	return &Runner{cfg: cfg, sweep: Sweep}
}

// Submit starts j in the background and returns its id, or ErrBusy while as many sweeps run
// as the runner allows. now is the time of submission.
func (r *Runner) Submit(j SweepJob, now time.Time) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running() >= r.cfg.Running {
		return 0, ErrBusy
	}
	r.next++
	sj := &sweepJob{state: JobState{ID: r.next, Base: j.Base, Settings: j.Settings, Jobs: len(j.Trace.Jobs)}, submitted: now}
	r.jobs = append(r.jobs, sj)
	r.expire(now)
	go func() {
		rows, err := r.sweep(j.Trace, j.Base, j.Settings, r.cfg.Workers, func(n int) {
			r.mu.Lock()
			defer r.mu.Unlock()
			sj.state.Done = max(sj.state.Done, n) // workers may report out of order
		})
		r.mu.Lock()
		defer r.mu.Unlock()
		sj.state.Finished, sj.state.Rows, sj.state.Err = true, rows, err
	}()
	return sj.state.ID, nil
}

// Job returns the state of the job with id at now; false when it is not kept (never
// submitted, or expired).
func (r *Runner) Job(id int64, now time.Time) (JobState, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire(now)
	for _, sj := range r.jobs {
		if sj.state.ID == id {
			return sj.state, true
		}
	}
	return JobState{}, false
}

// running counts the jobs not finished.
func (r *Runner) running() int {
	n := 0
	for _, sj := range r.jobs {
		if !sj.state.Finished {
			n++
		}
	}
	return n
}

// expire drops the finished jobs kept longer than Keep at now, then the oldest finished ones
// past Kept.
func (r *Runner) expire(now time.Time) {
	if r.cfg.Keep > 0 {
		r.jobs = slices.DeleteFunc(r.jobs, func(sj *sweepJob) bool {
			return sj.state.Finished && now.Sub(sj.submitted) > r.cfg.Keep
		})
	}
	for over := len(r.jobs) - r.cfg.Kept; r.cfg.Kept > 0 && over > 0; over-- {
		i := slices.IndexFunc(r.jobs, func(sj *sweepJob) bool { return sj.state.Finished })
		if i < 0 {
			return
		}
		r.jobs = slices.Delete(r.jobs, i, i+1)
	}
}
