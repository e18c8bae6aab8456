package replay

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// heldSweeps replaces r's sweeps with ones that report one setting done, say so on progressed,
// then wait until released; each value sent on release ends one sweep with that error.
func heldSweeps(r *Runner) (release chan<- error, progressed <-chan struct{}) {
	rel, prog := make(chan error), make(chan struct{}, 8)
	r.sweep = func(tr *Trace, base Options, settings []Setting, workers int, progress func(int)) ([]SweepRow, error) {
		progress(1)
		prog <- struct{}{}
		if err := <-rel; err != nil {
			return nil, err
		}
		return make([]SweepRow, len(settings)), nil
	}
	return rel, prog
}

// waitFinished waits until job id has finished, however long that takes on this machine (the
// runner marks it just after its sweep returns), and returns its state.
func waitFinished(r *Runner, id int64, now time.Time) JobState {
	for {
		if st, ok := r.Job(id, now); !ok || st.Finished {
			return st
		}
		time.Sleep(time.Millisecond) // between reads, not a bound
	}
}

// twoSettings is a sweep job of two settings over a trace of one job.
func twoSettings() SweepJob {
	return SweepJob{Trace: &Trace{Jobs: make([]Job, 1)}, Settings: []Setting{{{"step", "1"}}, {{"step", "2"}}}}
}

// TestRunnerBoundsRunningSweeps: a second sweep is refused while the one allowed runs, and
// accepted once it finished; a job's state shows its progress, then its outcome.
func TestRunnerBoundsRunningSweeps(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	r := NewRunner(RunnerConfig{Running: 1, Kept: 5})
	release, progressed := heldSweeps(r)
	id, err := r.Submit(twoSettings(), t0)
	if err != nil || id != 1 {
		t.Fatalf("Submit = %d, %v; want job 1", id, err)
	}
	if _, err := r.Submit(twoSettings(), t0); !errors.Is(err, ErrBusy) {
		t.Errorf("Submit while job 1 runs = %v, want ErrBusy", err)
	}
	<-progressed
	if st, ok := r.Job(1, t0); !ok || st.Finished || st.Done != 1 || len(st.Settings) != 2 || st.Jobs != 1 {
		t.Errorf("Job(1) while running = %+v, %v; want 1 of 2 settings done, not finished", st, ok)
	}
	release <- errors.New("no")
	if st := waitFinished(r, 1, t0); st.Err == nil || st.Rows != nil {
		t.Errorf("Job(1) failed = %+v, want its error", st)
	}
	id, err = r.Submit(twoSettings(), t0)
	if err != nil || id != 2 {
		t.Fatalf("Submit after job 1 finished = %d, %v; want job 2", id, err)
	}
	release <- nil
	if st := waitFinished(r, 2, t0); !st.Finished || st.Err != nil || len(st.Rows) != 2 {
		t.Errorf("Job(2) = %+v, want 2 rows", st)
	}
}

// TestRunnerExpires: a finished job is kept Keep after it was submitted and only the newest
// Kept jobs are; a running job is kept whatever its age.
func TestRunnerExpires(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	r := NewRunner(RunnerConfig{Running: 1, Kept: 2, Keep: time.Hour})
	release, _ := heldSweeps(r)
	for i := range 3 {
		id, err := r.Submit(twoSettings(), t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		release <- nil
		waitFinished(r, id, t0)
	}
	if _, ok := r.Job(1, t0); ok {
		t.Error("job 1 is kept beyond the newest 2")
	}
	if _, ok := r.Job(2, t0.Add(time.Hour)); !ok {
		t.Error("job 2 is gone 59 minutes after it was submitted, want kept an hour")
	}
	if _, ok := r.Job(2, t0.Add(time.Hour+2*time.Minute)); ok {
		t.Error("job 2 is kept past the hour")
	}
	id, _ := r.Submit(twoSettings(), t0.Add(3*time.Hour))
	if _, ok := r.Job(id, t0.Add(9*time.Hour)); !ok {
		t.Error("a running job expired")
	}
	release <- nil
	waitFinished(r, id, t0.Add(3*time.Hour))
	if _, ok := r.Job(id, t0.Add(9*time.Hour)); ok {
		t.Error("a finished job is kept 6 hours after it was submitted")
	}
}

// TestRunnerSweeps: a job runs the real Sweep: a row per setting, in order.
func TestRunnerSweeps(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	tr, err := Read(strings.NewReader("job_id,submit_ts,duration_s,gpus\n1,0,3600,8\n2,10,3600,8\n3,4000,600,2\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	params, err := ParseSweep("scale_up_delay=1m,2h")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(RunnerConfig{Workers: 2})
	id, err := r.Submit(SweepJob{Trace: tr, Base: Options{Fleet: elasticFleet()}, Settings: Combinations(params)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	st := waitFinished(r, id, t0)
	if st.Err != nil || len(st.Rows) != 2 || st.Rows[1].Setting != "scale_up_delay=2h" || st.Done != 2 {
		t.Errorf("Job(%d) = %+v, want 2 rows, the last scale_up_delay=2h", id, st)
	}
}
