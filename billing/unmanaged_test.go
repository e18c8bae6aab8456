package billing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestPoolIdleUnmanaged: card time no task held while processes of no task used the cards is
// unmanaged use, a class of its own beside pool idle, per pool and node: it is taken out of
// idle (so no package and not the organisation pays it), never out of held time, and the
// bills are the same as without it.
func TestPoolIdleUnmanaged(t *testing.T) {
	f := newFixture(t, "2026-04", "Asia/Shanghai").project(1, "alpha").project(2, "beta").price(0, a100, 1, 1).
		plan(models.BillingPlan{ProjectID: 2, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 1}).
		task(1, 1, "x", models.TaskSucceeded, 0, 10).hold(1, 1, 1, a100, 0, 10, false).hold(1, 1, 2, a100, 0, 10, false).
		task(2, 2, "y", models.TaskSucceeded, 0, 700).hold(2, 2, 3, a100, 0, 700, false)
	f.in.Nodes = []models.LedgerNode{
		{ID: 1, Hostname: "n1", Pool: "a100-pool", Spec: a100, State: models.NodeReady,
			RegisteredAt: f.at(-5), LastSeenAt: f.at(100000), GPUIDs: []int64{1, 2, 3, 4}},
		{ID: 2, Hostname: "n2", Pool: "a100-pool", Spec: a100, State: models.NodeReady,
			RegisteredAt: f.at(-5), LastSeenAt: f.at(100000), GPUIDs: []int64{5}},
	}
	without := f.compute(t)
	hours := func(from, to float64) (int64, int64) { return f.at(from).Unix(), f.at(to).Unix() }
	span := func(gpu int64, from, to float64) models.UnmanagedSpan {
		s, e := hours(from, to)
		if to == 0 {
			e = 0 // going on
		}
		return models.UnmanagedSpan{GPUID: gpu, Start: s, End: e}
	}
	f.in.Unmanaged = []models.UnmanagedSpan{
		span(4, 100, 110), span(4, 105, 108), // a GPU no task held: 10 h (overlaps counted once)
		span(3, 650, 720), // held until 700 by y: 20 h
		span(2, 719, 0),   // going on: until the month's end, 1 h
		span(1, -10, -6),  // before the node registered: none
		span(5, 200, 203), // the other node: 3 h
		span(9, 100, 200), // a GPU of no node: none
	}
	with := f.compute(t)
	if diff := cmp.Diff(without.Bills, with.Bills); diff != "" {
		t.Errorf("bills changed by unmanaged use (-without +with):\n%s", diff)
	}
	month := int64(720 * 3600)
	idle := 5*month - 720*3600 - 34*3600
	want := []PoolIdle{{Pool: "a100-pool", Spec: a100, ProvisionedS: 5 * month, HeldS: 720 * 3600,
		IdleS: idle, PackageS: 20 * 3600, OrganisationS: idle - 20*3600, UnmanagedS: 34 * 3600,
		UnmanagedNodes: []NodeUnmanaged{{Node: "n1", UnmanagedS: 31 * 3600}, {Node: "n2", UnmanagedS: 3 * 3600}}}}
	if diff := cmp.Diff(want, with.PoolIdle); diff != "" {
		t.Errorf("PoolIdle (-want +got):\n%s", diff)
	}
	for _, p := range with.PoolIdle {
		if p.ProvisionedS != p.HeldS+p.IdleS+p.UnmanagedS || p.IdleS != p.PackageS+p.OrganisationS {
			t.Errorf("pool %s: provisioned %d ≠ held %d + idle %d + unmanaged %d, or idle ≠ package %d + organisation %d",
				p.Pool, p.ProvisionedS, p.HeldS, p.IdleS, p.UnmanagedS, p.PackageS, p.OrganisationS)
		}
	}
	if w := without.PoolIdle[0]; w.IdleS != want[0].IdleS+want[0].UnmanagedS || w.ProvisionedS != want[0].ProvisionedS || w.HeldS != want[0].HeldS {
		t.Errorf("without unmanaged use: %+v; want its idle to be idle plus unmanaged with it", w)
	}
	from, to := f.in.Month.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), Nodes: f.in.Nodes, Unmanaged: f.in.Unmanaged})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int64{}
	for _, u := range r.Nodes {
		got[u.Key] = [2]int64{u.UnheldS, u.UnmanagedS}
	}
	wantNodes := map[string][2]int64{"n1": {4*month - 720*3600, 31 * 3600}, "n2": {month, 3 * 3600}}
	if diff := cmp.Diff(wantNodes, got); diff != "" || r.Total.UnmanagedS != 34*3600 {
		t.Errorf("report nodes' unheld and unmanaged seconds (-want +got):\n%s; total unmanaged %d", diff, r.Total.UnmanagedS)
	}
}
