package scaler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDecideScaleDown covers when a pool shrinks and which nodes it drains: unneeded time,
// the low memory mark over its window, min, step, reserved minimum, cooldowns, demand, and
// the choice of nodes by their tasks' expected ends.
func TestDecideScaleDown(t *testing.T) {
	low := flat(10, 15*time.Minute)
	two := func(p *Policy) { p.Step = 2 }
	tests := map[string]struct {
		snap    Snapshot
		want    []string
		details []string
	}{
		"a node unneeded long enough and memory low": {
			snap:    scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, 12*time.Minute)).memory(low...).snap(),
			want:    []string{"drain 2 node-unneeded"},
			details: []string{"node 2 without task for 12m ≥ 10m; memory 10% < 20% for 10m; node 2 empty for 12m"},
		},
		"not unneeded long enough": {
			snap:    scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, 8*time.Minute)).memory(low...).snap(),
			want:    []string{"skip none-unneeded", "skip no-demand"},
			details: []string{"node 2 without task for 8m < 10m"},
		},
		"custom unneeded time": {
			snap: scalePool().policy(func(p *Policy) { p.UnneededTime = 5 * time.Minute }).
				nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, 8*time.Minute)).memory(low...).snap(),
			want: []string{"drain 2 node-unneeded"},
		},
		"memory not low over the window": {
			snap: scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).
				memory(append(flat(10, 15*time.Minute)[:10], flat(30, 5*time.Minute)...)...).snap(),
			want:    []string{"skip memory-not-low", "skip no-demand"},
			details: []string{"≥ 20% within 10m"},
		},
		"no memory samples": {
			snap:    scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).snap(),
			want:    []string{"skip memory-not-low", "skip no-demand"},
			details: []string{"no memory samples cover the last 10m"},
		},
		"memory condition off": {
			snap: scalePool().policy(func(p *Policy) { p.MemoryLowPct = 100 }).
				nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).snap(),
			want:    []string{"drain 2 node-unneeded"},
			details: []string{"memory condition off"},
		},
		"at the minimum": {
			snap: scalePool().policy(func(p *Policy) { p.MinNodes = 2 }).
				nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"ready demand holds the pool": {
			snap: scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).
				demand(wait(1, 8, 10*time.Second)).snap(),
			want: []string{"skip demand-pending", "skip no-demand"},
		},
		"quota-blocked demand does not hold the pool": {
			snap: scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).
				demand(quotaBlocked(wait(1, 8, time.Hour))).snap(),
			want: []string{"drain 2 node-unneeded"},
		},
		"in cooldown after a scale-up": {
			snap: scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).
				lastUp(5 * time.Minute).snap(),
			want:    []string{"skip in-cooldown", "skip no-demand"},
			details: []string{"last scale-up 5m ago < cooldown 10m"},
		},
		"in cooldown after a scale-down": {
			snap: scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).
				lastDown(5 * time.Minute).snap(),
			want:    []string{"skip in-cooldown", "skip no-demand"},
			details: []string{"last scale-down 5m ago < cooldown 10m"},
		},
		"custom down cooldown": {
			snap: scalePool().policy(func(p *Policy) { p.CooldownAfterDown = 2 * time.Minute }).
				nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).lastDown(5 * time.Minute).snap(),
			want: []string{"drain 2 node-unneeded"},
		},
		"a step drains the longest empty first": {
			snap: scalePool().policy(two).nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, 20*time.Minute),
				idleNode(3, time.Hour), idleNode(4, 11*time.Minute)).memory(low...).snap(),
			want: []string{"drain 3 node-unneeded", "drain 2 node-unneeded"},
		},
		"then the busy node whose tasks end soonest, within the drain buffer": {
			snap: scalePool().policy(two).nodes(
				busy(1, task(10, 20*time.Minute, time.Hour), task(11, 25*time.Minute, 0)),
				busy(2, task(20, 5*time.Minute, 0), task(21, 45*time.Minute, 0)),
				busy(3, task(30, 10*time.Minute, 0)),
				idleNode(4, time.Hour)).memory(low...).snap(),
			want:    []string{"drain 4 node-unneeded", "drain 3 node-unneeded"},
			details: []string{"node 3's 1 tasks end in 10m by their estimates"},
		},
		"a task past its estimate ends by its max runtime": {
			snap: scalePool().policy(two).nodes(
				busy(1, task(10, -5*time.Minute, 50*time.Minute)),
				busy(2, task(20, -5*time.Minute, 20*time.Minute)),
				busy(3, longTask(30)),
				idleNode(4, time.Hour)).memory(low...).snap(),
			want: []string{"drain 4 node-unneeded", "drain 2 node-unneeded"},
		},
		"no busy node ends within the buffer": {
			snap: scalePool().policy(func(p *Policy) { p.Step = 3 }).nodes(
				busy(1, task(10, 2*time.Hour, 0)), busy(2, longTask(20)), idleNode(3, time.Hour), busy(4, task(40, 2*time.Hour, 0))).
				memory(low...).snap(),
			want: []string{"drain 3 node-unneeded"},
		},
		"step never goes under the minimum": {
			snap: scalePool().policy(func(p *Policy) { p.Step, p.MinNodes = 4, 2 }).
				nodes(idleNode(1, time.Hour), idleNode(2, time.Hour), idleNode(3, time.Hour)).memory(low...).snap(),
			want: []string{"drain 1 node-unneeded"},
		},
		"reserved minimum keeps empty nodes": {
			snap: scalePool().policy(func(p *Policy) { p.Step, p.ReservedMin = 3, 1 }).
				nodes(busy(1, task(10, 2*time.Hour, 0)), idleNode(2, time.Hour), idleNode(3, 2*time.Hour)).memory(low...).snap(),
			want: []string{"drain 3 node-unneeded"},
		},
		"reserved minimum blocks the last empty node": {
			snap: scalePool().policy(func(p *Policy) { p.ReservedMin = 1 }).
				nodes(busy(1, task(10, 2*time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).snap(),
			want: []string{"skip reserved-min", "skip no-demand"},
		},
		"a node no provider made is never drained": {
			snap: scalePool().nodes(busy(1, task(10, time.Hour, 0)), static(idleNode(2, time.Hour))).memory(low...).snap(),
			want: []string{"skip none-unneeded", "skip no-demand"},
		},
		"the short lane's empty node is kept": {
			snap: scalePool().policy(func(p *Policy) { p.ShortLaneNodes = 1 }).
				nodes(busy(1, task(10, 2*time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).snap(),
			want:    []string{"skip none-unneeded", "skip no-demand"},
			details: []string{"every removable node runs a task; node 2 holds the short lane's reserve of 1"},
		},
		"the short lane's reserve is the nodes of the highest ids": {
			snap: scalePool().policy(func(p *Policy) { p.ShortLaneNodes, p.Step = 1, 2 }).
				nodes(idleNode(1, 20*time.Minute), busy(2, task(20, 2*time.Hour, 0)), idleNode(3, time.Hour)).memory(low...).snap(),
			want: []string{"drain 1 node-unneeded"},
		},
		"the short lane's empty nodes are no warm reserve": {
			snap: scalePool().policy(func(p *Policy) { p.ShortLaneNodes, p.ReservedMin = 1, 1 }).
				nodes(busy(1, task(10, 2*time.Hour, 0)), idleNode(2, time.Hour)).memory(low...).snap(),
			want:    []string{"scale-up +1 reserved-min"},
			details: []string{"0 empty or booting nodes < reserved minimum 1"},
		},
		"over the maximum, the short lane's reserve drains last": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes, p.ShortLaneNodes = 1, 1 }).
				nodes(busy(1, longTask(10)), idleNode(2, time.Hour)).snap(),
			want:    []string{"drain 1 above-max"},
			details: []string{"size 2 > max 1; node 1's tasks have no expected end"},
		},
		"booting machines go first when over the maximum": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 2 }).nodes(busy(1, longTask(10)), idleNode(2, time.Minute)).
				booting("k1", 3*time.Minute).booting("k2", time.Minute).snap(),
			want:    []string{"delete k2 above-max", "delete k1 above-max"},
			details: []string{"size 4 > max 2; machine i-k2 (k2) still boots"},
		},
		"a pool over its maximum drains the excess at once": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 2 }).nodes(
				busy(1, longTask(10)), busy(2, task(20, 3*time.Hour, 0)), busy(3, task(30, time.Hour, 0)), idleNode(4, time.Minute)).
				demand(wait(1, 8, time.Hour)).lastDown(time.Minute).snap(),
			want:    []string{"drain 4 above-max", "drain 3 above-max"},
			details: []string{"size 4 > max 2; node 4 empty for 1m", "size 3 > max 2; node 3's 1 tasks end in 1h"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { checkSummary(t, tc.snap, tc.want, tc.details...) })
	}
}

func TestDecideScaleUnneededMarks(t *testing.T) {
	fresh := busy(3)
	future := idleNode(4, -time.Minute) // a clock step back must not hold the timer
	snap := scalePool().nodes(busy(1, task(10, time.Hour, 0)), idleNode(2, 7*time.Minute), fresh, future,
		drainedFor(busy(5), time.Minute)).snap()
	got := DecideScale(snap, st0).Unneeded
	want := map[int64]time.Time{2: ago(7 * time.Minute), 3: st0, 4: st0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DecideScale(...).Unneeded (-want +got):\n%s", diff)
	}
}
