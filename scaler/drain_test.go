package scaler

import (
	"testing"
	"time"
)

// TestDecideScaleDrainAndBoot covers nodes the loop drains (removed once empty, given up
// after the buffer or when demand comes back) and machines that do not boot.
func TestDecideScaleDrainAndBoot(t *testing.T) {
	full := busy(1, task(10, 2*time.Hour, 4*time.Hour))
	tests := map[string]struct {
		snap    Snapshot
		want    []string
		details []string
	}{
		"a drained node is removed once empty": {
			snap:    scalePool().nodes(full, drainedFor(busy(2), 4*time.Minute)).snap(),
			want:    []string{"remove 2 drained-empty", "skip at-min-size"},
			details: []string{"node 2 drained 4m ago and empty"},
		},
		"a drained node still busy within the buffer waits": {
			snap: scalePool().nodes(full, drainedFor(busy(2, task(20, 5*time.Minute, time.Hour)), 20*time.Minute)).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"a drain past the buffer is given up": {
			snap:    scalePool().nodes(full, drainedFor(busy(2, task(20, 5*time.Minute, time.Hour)), 31*time.Minute)).snap(),
			want:    []string{"undrain 2 drain-too-long"},
			details: []string{"node 2 still runs 1 tasks after draining 31m > buffer 30m"},
		},
		"custom drain buffer": {
			snap: scalePool().policy(func(p *Policy) { p.DrainBuffer = 10 * time.Minute }).
				nodes(full, drainedFor(busy(2, longTask(20)), 11*time.Minute)).snap(),
			want: []string{"undrain 2 drain-too-long"},
		},
		"over the maximum the drain holds past the buffer": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 1 }).
				nodes(full, drainedFor(busy(2, longTask(20)), 2*time.Hour)).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"demand coming back undrains, empty nodes first": {
			snap: scalePool().nodes(full, drainedFor(busy(2, task(20, time.Minute, 0)), time.Minute),
				drainedFor(busy(3), time.Minute)).demand(wait(1, 8, 3*time.Minute)).snap(),
			want:    []string{"undrain 3 demand-waiting"},
			details: []string{"8 GPUs of ready demand waited 3m > 2m; node 3 takes tasks again"},
		},
		"undrained nodes cover the demand before new machines": {
			snap: scalePool().nodes(full, drainedFor(busy(2, task(20, time.Minute, 0)), time.Minute),
				drainedFor(busy(3), time.Minute)).demand(wait(1, 24, 3*time.Minute)).snap(),
			want: []string{"undrain 3 demand-waiting", "undrain 2 demand-waiting", "scale-up +1 demand-waiting"},
		},
		"demand back at the maximum removes nothing it needs": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 2 }).nodes(full, busy(4, longTask(40)),
				drainedFor(busy(2), time.Minute)).demand(wait(1, 8, 3*time.Minute)).snap(),
			want: []string{"remove 2 drained-empty", "skip at-max-size"},
		},
		"a node drained by hand is left alone": {
			snap: scalePool().nodes(full, Node{ID: 2, MachineID: "m-2", State: NodeStateDraining}).
				demand(wait(1, 8, 3*time.Minute)).lastUp(time.Minute).snap(),
			want: []string{"skip in-cooldown"},
		},
		"a machine past the boot timeout is deleted; its replacement waits the back-off": {
			snap: scalePool().policy(func(p *Policy) { p.MinNodes = 2 }).nodes(full).
				booting("k1", 16*time.Minute).lastUp(16 * time.Minute).snap(),
			want: []string{"delete k1 boot-timeout", "skip boot-backoff"},
			details: []string{"machine i-k1 (k1) did not register within 15m (asked 16m ago)",
				"1 of at most 3 machines in a row did not boot; the next is asked for in 15m (back-off 15m)"},
		},
		"a machine within the boot timeout waits": {
			snap: scalePool().policy(func(p *Policy) { p.MinNodes = 2 }).nodes(full).booting("k1", 14*time.Minute).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"custom boot timeout": {
			snap: scalePool().policy(func(p *Policy) { p.BootTimeout = 5 * time.Minute }).nodes(full).
				booting("k1", 6*time.Minute).snap(),
			want: []string{"delete k1 boot-timeout", "skip at-min-size"},
		},
		"a failed machine is deleted at once": {
			snap: func() Snapshot {
				b := scalePool().nodes(full).booting("k1", time.Minute)
				b.p.Booting[0].Failed = true
				return b.snap()
			}(),
			want:    []string{"delete k1 machine-failed", "skip at-min-size"},
			details: []string{"machine i-k1 (k1) failed at the provider"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { checkSummary(t, tc.snap, tc.want, tc.details...) })
	}
}
