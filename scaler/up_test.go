package scaler

import (
	"testing"
	"time"
)

// TestDecideScaleUp covers what makes a pool grow and what holds it back: demand and its
// delay, quota-blocked demand, memory marks over windows, min, step, max, in-flight cap,
// reserved minimum and cooldown.
func TestDecideScaleUp(t *testing.T) {
	full := func(id int64) Node { return busy(id, task(id*10, 2*time.Hour, 4*time.Hour)) }
	tests := map[string]struct {
		snap    Snapshot
		want    []string
		details []string
	}{
		"demand that waited past the delay": {
			snap:    scalePool().nodes(full(1), full(2)).demand(wait(1, 16, 3*time.Minute), wait(2, 8, 150*time.Second)).snap(),
			want:    []string{"scale-up +3 demand-waiting"},
			details: []string{"24 GPUs of ready demand waited 3m > 2m"},
		},
		"demand within the delay waits": {
			snap: scalePool().nodes(full(1)).demand(wait(1, 16, time.Minute)).snap(),
			want: []string{"skip demand-pending", "skip no-demand"},
		},
		"quota-blocked demand never scales up": {
			snap: scalePool().nodes(full(1)).demand(quotaBlocked(wait(1, 64, time.Hour))).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"booting machines cover the demand": {
			snap: scalePool().nodes(full(1)).demand(wait(1, 16, 5*time.Minute)).
				booting("k1", time.Minute).booting("k2", time.Minute).snap(),
			want:    []string{"skip demand-pending", "skip covered-by-booting"},
			details: []string{"16 GPUs of ready demand waited 5m > 2m; 2 machines booting cover it"},
		},
		"booting machines cover part of the demand": {
			snap: scalePool().nodes(full(1)).demand(wait(1, 24, 5*time.Minute)).booting("k1", time.Minute).snap(),
			want: []string{"scale-up +2 demand-waiting"},
		},
		"memory above the high mark for the whole window": {
			snap:    scalePool().policy(func(p *Policy) { p.Step = 2 }).nodes(full(1)).memory(flat(86, 6*time.Minute)...).snap(),
			want:    []string{"scale-up +2 memory-high"},
			details: []string{"memory 86% > 80% for 5m"},
		},
		"memory above the mark for part of the window": {
			snap: scalePool().nodes(full(1)).memory(append(flat(70, 6*time.Minute)[:4], flat(90, 2*time.Minute)...)...).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"memory samples shorter than the window": {
			snap: scalePool().nodes(full(1)).memory(flat(95, 3*time.Minute)...).snap(),
			want: []string{"skip at-min-size", "skip no-demand"},
		},
		"memory high with a step already booting": {
			snap: scalePool().nodes(full(1)).memory(flat(95, 10*time.Minute)...).booting("k1", time.Minute).snap(),
			want: []string{"skip none-unneeded", "skip covered-by-booting"},
		},
		"custom memory mark and window": {
			snap: scalePool().policy(func(p *Policy) { p.MemoryHighPct, p.MemoryHighWindow = 60, 2*time.Minute }).
				nodes(full(1)).memory(flat(65, 2*time.Minute)...).snap(),
			want:    []string{"scale-up +1 memory-high"},
			details: []string{"memory 65% > 60% for 2m"},
		},
		"below the minimum": {
			snap:    scalePool().policy(func(p *Policy) { p.MinNodes = 3 }).nodes(full(1)).snap(),
			want:    []string{"scale-up +2 below-min"},
			details: []string{"size 1 < min 3"},
		},
		"need rounded up to the step": {
			snap: scalePool().policy(func(p *Policy) { p.Step = 4 }).nodes(full(1)).demand(wait(1, 9, 3*time.Minute)).snap(),
			want: []string{"scale-up +4 demand-waiting"},
		},
		"the maximum cuts the scale-up": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 3 }).nodes(full(1), full(2)).
				demand(wait(1, 32, 3*time.Minute)).snap(),
			want:    []string{"scale-up +1 demand-waiting", "skip at-max-size"},
			details: []string{"wanted 4 more, max 3 leaves room for 1"},
		},
		"at the maximum": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 2 }).nodes(full(1), full(2)).
				demand(wait(1, 32, 3*time.Minute)).snap(),
			want:    []string{"skip at-max-size"},
			details: []string{"32 GPUs of ready demand waited 3m > 2m; size 2 = max 2"},
		},
		"booting machines count toward the maximum": {
			snap: scalePool().policy(func(p *Policy) { p.MaxNodes = 2 }).nodes(full(1)).booting("k1", time.Minute).
				demand(wait(1, 32, 3*time.Minute)).snap(),
			want: []string{"skip at-max-size"},
		},
		"the in-flight cap cuts the scale-up": {
			snap: scalePool().policy(func(p *Policy) { p.MaxInFlight = 3 }).nodes(full(1)).
				booting("k1", time.Minute).booting("k2", time.Minute).demand(wait(1, 48, 3*time.Minute)).snap(),
			want:    []string{"scale-up +1 demand-waiting", "skip in-flight-cap"},
			details: []string{"wanted 4 more, 2 booting of cap 3"},
		},
		"the in-flight cap is full": {
			snap: scalePool().policy(func(p *Policy) { p.MaxInFlight = 2 }).nodes(full(1)).
				booting("k1", time.Minute).booting("k2", time.Minute).demand(wait(1, 48, 3*time.Minute)).snap(),
			want:    []string{"skip in-flight-cap"},
			details: []string{"2 machines booting = cap 2"},
		},
		"reserved minimum of empty nodes": {
			snap:    scalePool().policy(func(p *Policy) { p.ReservedMin = 2 }).nodes(full(1), idleNode(2, time.Minute)).snap(),
			want:    []string{"scale-up +1 reserved-min"},
			details: []string{"1 empty or booting nodes < reserved minimum 2"},
		},
		"a booting machine counts toward the reserve": {
			snap: scalePool().policy(func(p *Policy) { p.ReservedMin = 1 }).nodes(full(1)).booting("k1", time.Minute).snap(),
			want: []string{"skip none-unneeded", "skip no-demand"},
		},
		"in cooldown after a scale-up": {
			snap:    scalePool().nodes(full(1)).demand(wait(1, 16, 5*time.Minute)).lastUp(4 * time.Minute).snap(),
			want:    []string{"skip in-cooldown"},
			details: []string{"last scale-up 4m ago < cooldown 10m"},
		},
		"cooldown over": {
			snap: scalePool().nodes(full(1)).demand(wait(1, 16, 5*time.Minute)).lastUp(11 * time.Minute).snap(),
			want: []string{"scale-up +2 demand-waiting"},
		},
		"custom cooldown": {
			snap: scalePool().policy(func(p *Policy) { p.CooldownAfterUp = 3 * time.Minute }).nodes(full(1)).
				demand(wait(1, 16, 5*time.Minute)).lastUp(4 * time.Minute).snap(),
			want: []string{"scale-up +2 demand-waiting"},
		},
		"below the minimum ignores the cooldown": {
			snap: scalePool().policy(func(p *Policy) { p.MinNodes = 2 }).nodes(full(1)).lastUp(time.Minute).snap(),
			want: []string{"scale-up +1 below-min"},
		},
		"a scale-down cooldown does not hold a scale-up": {
			snap: scalePool().nodes(full(1)).demand(wait(1, 8, 5*time.Minute)).lastDown(time.Minute).snap(),
			want: []string{"scale-up +1 demand-waiting"},
		},
		"every reason is told": {
			snap: scalePool().policy(func(p *Policy) { p.MinNodes = 2 }).nodes(full(1)).
				demand(wait(1, 24, 3*time.Minute)).memory(flat(90, 10*time.Minute)...).snap(),
			want:    []string{"scale-up +3 below-min"},
			details: []string{"size 1 < min 2; 24 GPUs of ready demand waited 3m > 2m; memory 90% > 80% for 5m"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { checkSummary(t, tc.snap, tc.want, tc.details...) })
	}
}

func TestDecideScaleSizes(t *testing.T) {
	snap := scalePool().policy(func(p *Policy) { p.Step = 2 }).
		nodes(busy(1, task(10, time.Hour, 0)), drainedFor(busy(2, task(20, time.Minute, 0)), time.Minute)).
		booting("k1", time.Minute).demand(wait(1, 24, 3*time.Minute)).snap()
	plan := DecideScale(snap, st0)
	// Nodes 1 and 2 and one machine booting: size 3. The drained node comes back (+1), then
	// 24 GPUs need 3 nodes, one booting and one back: one more, rounded to the step (+2).
	want := PoolSize{Pool: "a100", Size: 3, Desired: 5, DemandGPUs: 24}
	if len(plan.Sizes) != 1 || plan.Sizes[0] != want {
		t.Errorf("DecideScale(...).Sizes = %+v, want [%+v]\nactions: %v", plan.Sizes, want, plan.Actions)
	}
}

func TestDecideScaleIsDeterministic(t *testing.T) {
	snap := Snapshot{Pools: []Pool{
		scalePool().nodes(idleNode(3, time.Hour), idleNode(1, time.Hour), idleNode(2, time.Hour)).
			memory(flat(5, time.Hour)...).policy(func(p *Policy) { p.Step = 2 }).p,
		{Name: "4090", GPUsPerNode: 8, Policy: Policy{MinNodes: 2, MaxNodes: 4}},
	}}
	first := summary(DecideScale(snap, st0))
	for range 20 {
		if got := summary(DecideScale(snap, st0)); len(got) != len(first) || got[0] != first[0] {
			t.Fatalf("DecideScale gave %v, then %v", first, got)
		}
	}
	// Pools come by name: 4090 before a100.
	if first[0] != "scale-up +2 below-min" || first[1] != "drain 1 node-unneeded" || first[2] != "drain 2 node-unneeded" {
		t.Errorf("DecideScale(...) = %v, want the 4090 pool first, then nodes 1 and 2 drained", first)
	}
}
