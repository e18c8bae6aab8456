package scaler

import (
	"testing"
	"time"
)

// failures gives the pool a run of n boot failures, the last d ago.
func (b poolB) failures(n int, d time.Duration) poolB {
	b.p.Boot = BootRun{Failures: n, LastAt: ago(d)}
	return b
}

// failingFor marks the pool as stopped d ago.
func (b poolB) failingFor(d time.Duration) poolB { b.p.Boot.FailingSince = ago(d); return b }

// TestBootBackoffDoubles: the wait after a boot failure starts at the boot timeout and
// doubles with each further failure in a row, up to the cap.
func TestBootBackoffDoubles(t *testing.T) {
	pol := Policy{}.WithDefaults() // boot timeout 15m, cap 4h
	for failures, want := range map[int]time.Duration{0: 0, 1: 15 * time.Minute, 2: 30 * time.Minute, 3: time.Hour,
		4: 2 * time.Hour, 5: 4 * time.Hour, 6: 4 * time.Hour, 100: 4 * time.Hour} {
		if got := (BootRun{Failures: failures}).Backoff(pol); got != want {
			t.Errorf("BootRun{Failures: %d}.Backoff(default policy) = %s, want %s", failures, got, want)
		}
	}
	pol.BootBackoffMax = 20 * time.Minute
	if got := (BootRun{Failures: 2}).Backoff(pol); got != 20*time.Minute {
		t.Errorf("Backoff with a 20m cap after 2 failures = %s, want 20m", got)
	}
	pol.BootBackoffMax = 5 * time.Minute // under the boot timeout: the cap wins from the start
	if got := (BootRun{Failures: 1}).Backoff(pol); got != 5*time.Minute {
		t.Errorf("Backoff with a 5m cap after 1 failure = %s, want 5m", got)
	}
}

// TestDecideScaleBootFailures covers what a pool whose machines fail to boot may ask for:
// nothing within the back-off after its last failure, nothing at all once the run reaches
// the limit, whatever needs more nodes; the rest of the loop goes on.
func TestDecideScaleBootFailures(t *testing.T) {
	full := busy(1, task(10, 2*time.Hour, 4*time.Hour))
	belowMin := scalePool().policy(func(p *Policy) { p.MinNodes = 2 }).nodes(full)
	tests := map[string]struct {
		snap    Snapshot
		want    []string
		details []string
	}{
		"within the back-off after a failure": {
			snap: belowMin.failures(1, 5*time.Minute).snap(),
			want: []string{"skip boot-backoff"},
			details: []string{"size 1 < min 2",
				"1 of at most 3 machines in a row did not boot; the next is asked for in 10m (back-off 15m)"},
		},
		"the back-off ran out": {
			snap: belowMin.failures(1, 16*time.Minute).snap(),
			want: []string{"scale-up +1 below-min"},
		},
		"the back-off doubles with the second failure": {
			snap:    belowMin.failures(2, 20*time.Minute).snap(),
			want:    []string{"skip boot-backoff"},
			details: []string{"the next is asked for in 10m (back-off 30m)"},
		},
		"the back-off is capped": {
			snap: belowMin.policy(func(p *Policy) { p.BootFailureLimit = 10 }).failures(8, 4*time.Hour+time.Minute).snap(),
			want: []string{"scale-up +1 below-min"},
		},
		"demand waits out the back-off too": {
			snap: scalePool().nodes(full).demand(wait(1, 16, 10*time.Minute)).failures(1, time.Minute).snap(),
			want: []string{"skip boot-backoff"},
		},
		"a failing pool asks for nothing, however long ago": {
			snap:    belowMin.demand(wait(1, 16, time.Hour)).failures(3, 10*time.Hour).failingFor(10 * time.Hour).snap(),
			want:    []string{"skip boot-failing"},
			details: []string{"3 machines in a row did not boot; none is asked for until an admin resumes the pool (stopped 10h ago)"},
		},
		"the failure that reaches the limit stops the pool": {
			snap:    belowMin.failures(2, time.Hour).booting("k1", 16*time.Minute).snap(),
			want:    []string{"delete k1 boot-timeout", "skip boot-failing"},
			details: []string{"3 machines in a row did not boot"},
		},
		"a failed machine counts as a failure": {
			snap: func() Snapshot {
				b := belowMin.failures(2, time.Hour).booting("k1", time.Minute)
				b.p.Booting[0].Failed = true
				return b.snap()
			}(),
			want: []string{"delete k1 machine-failed", "skip boot-failing"},
		},
		"a failing pool still shrinks": {
			snap: scalePool().nodes(full, idleNode(2, time.Hour)).memory(flat(5, 20*time.Minute)...).
				failures(3, time.Hour).failingFor(time.Hour).snap(),
			want: []string{"drain 2 node-unneeded"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			checkSummary(t, tc.snap, tc.want, tc.details...)
		})
	}
}

// TestDecideScaleCarriesTheBootRun: the plan's sizes carry the run after the pass's
// failures, which the replay keeps from tick to tick.
func TestDecideScaleCarriesTheBootRun(t *testing.T) {
	snap := scalePool().failures(1, time.Hour).booting("k1", 16*time.Minute).booting("k2", 20*time.Minute).snap()
	plan := DecideScale(snap, st0)
	want := BootRun{Failures: 3, LastAt: st0, FailingSince: st0}
	if len(plan.Sizes) != 1 || plan.Sizes[0].Boot != want {
		t.Errorf("DecideScale(...).Sizes = %+v, want the run %+v", plan.Sizes, want)
	}
	plan = DecideScale(scalePool().failures(1, time.Hour).snap(), st0)
	if got := plan.Sizes[0].Boot; got != (BootRun{Failures: 1, LastAt: ago(time.Hour)}) {
		t.Errorf("DecideScale(...) without a failure: run %+v, want it unchanged", got)
	}
}
