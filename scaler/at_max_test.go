package scaler

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/fleet/sim"
	"kashi/models"
	"kashi/scheduler"
)

func TestDecideAtMax(t *testing.T) {
	full := scalePool().policy(func(p *Policy) { p.MaxNodes = 2 }).nodes(busy(1, longTask(11)), busy(2, longTask(12)))
	since := func(b poolB, d time.Duration) poolB { b.p.AtMaxSince = ago(d); return b }
	tests := map[string]struct {
		pool poolB
		want PoolSize
	}{
		"at its maximum, demand just waiting: since now, no alert yet": {
			full.demand(wait(1, 8, 5*time.Minute)),
			PoolSize{Pool: "a100", Size: 2, Desired: 2, DemandGPUs: 8, AtMaxSince: st0},
		},
		"the wait carries on from the last tick": {
			since(full.demand(wait(1, 8, 5*time.Minute)), 29*time.Minute),
			PoolSize{Pool: "a100", Size: 2, Desired: 2, DemandGPUs: 8, AtMaxSince: ago(29 * time.Minute)},
		},
		"past the alert time: an alert": {
			since(full.demand(wait(1, 8, 5*time.Minute)), 30*time.Minute),
			PoolSize{Pool: "a100", Size: 2, Desired: 2, DemandGPUs: 8, AtMaxSince: ago(30 * time.Minute), AtMaxAlert: true},
		},
		"a custom alert time": {
			since(full.policy(func(p *Policy) { p.AtMaxAlertAfter = 10 * time.Minute }).demand(wait(1, 8, 5*time.Minute)), 10*time.Minute),
			PoolSize{Pool: "a100", Size: 2, Desired: 2, DemandGPUs: 8, AtMaxSince: ago(10 * time.Minute), AtMaxAlert: true},
		},
		"demand under the scale-up delay is not waiting": {
			since(full.demand(wait(1, 8, time.Minute)), time.Hour),
			PoolSize{Pool: "a100", Size: 2, Desired: 2, DemandGPUs: 8},
		},
		"quota-blocked demand does not count": {
			since(full.demand(quotaBlocked(wait(1, 8, time.Hour))), time.Hour),
			PoolSize{Pool: "a100", Size: 2, Desired: 2},
		},
		"room left: it grows, not at its maximum": {
			since(full.policy(func(p *Policy) { p.MaxNodes = 3 }).demand(wait(1, 8, 5*time.Minute)), time.Hour),
			PoolSize{Pool: "a100", Size: 2, Desired: 3, DemandGPUs: 8},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			plan := DecideScale(tc.pool.snap(), st0)
			if diff := cmp.Diff([]PoolSize{tc.want}, plan.Sizes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("DecideScale(...).Sizes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScalerAtMaxAlert: the loop raises the alert once the pool has been at its maximum with
// demand waiting for the pool's alert time, across ticks, and resolves it when the demand is
// gone.
func TestScalerAtMaxAlert(t *testing.T) {
	cfg := poolConfig()
	cfg.MaxNodes = 1
	waiting := true
	queue := func(ctx context.Context, now time.Time) (scheduler.Snapshot, scheduler.Plan, error) {
		if !waiting {
			return scheduler.Snapshot{}, scheduler.Plan{}, nil
		}
		snap := scheduler.Snapshot{Pending: []scheduler.Pending{{ID: 1, Spec: "A100-80G", GPUs: 8, SubmittedAt: st0.Add(-10 * time.Minute)}}}
		plan := scheduler.Plan{Waiting: []scheduler.Waiting{{TaskID: 1, Reason: scheduler.ReasonNoFreeGPUs, Spec: "A100-80G"}}}
		return snap, plan, nil
	}
	h := newScaleHarness(t, cfg, sim.Options{}, queue)
	h.register("static-1")
	open := func() []models.Alert {
		t.Helper()
		as, err := h.store.Alerts(h.ctx, models.AlertFilter{OpenOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []models.Alert
		for _, a := range as {
			if a.Kind == models.AlertPoolAtMax {
				out = append(out, a)
			}
		}
		return out
	}
	h.tick(0)
	h.tick(29 * time.Minute)
	if got := open(); len(got) != 0 {
		t.Fatalf("alerts after 29 min at max = %v, want none", got)
	}
	h.tick(time.Minute)
	if got := open(); len(got) != 1 || got[0].Subject != "a100" {
		t.Fatalf("alerts after 30 min at max = %+v, want one about a100", got)
	}
	waiting = false
	h.tick(time.Minute)
	if got := open(); len(got) != 0 {
		t.Errorf("alerts once no demand waits = %+v, want none", got)
	}
}
