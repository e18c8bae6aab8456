package scaler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
)

var _ Store = (*models.Store)(nil)

// poolConfig is an enabled A100 pool on the "sim" provider: min 1, max 4, the memory
// condition off so that unneeded nodes alone shrink it.
func poolConfig() models.PoolConfig {
	return models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x", Image: "kashi",
		Enabled: true, MinNodes: 1, MaxNodes: 4, MemoryLowPct: 100}
}

// scaleHarness runs a Scaler over a SQLite store and a sim provider on a fixed clock.
type scaleHarness struct {
	t      *testing.T
	ctx    context.Context
	store  *models.Store
	prov   *sim.Provider
	scaler *Scaler
	pool   models.ConfiguredPool
	now    time.Time
	keys   int
	// applied records the actions OnAction saw.
	applied []string
}

func newScaleHarness(t *testing.T, cfg models.PoolConfig, opts sim.Options, queue QueueFunc) *scaleHarness {
	t.Helper()
	h := &scaleHarness{t: t, ctx: context.Background(), store: modelstest.SQLite(t, models.Options{}), now: st0}
	opts.Now = func() time.Time { return h.now }
	h.prov = sim.New(opts)
	var err error
	if h.pool, err = h.store.SavePoolConfig(h.ctx, "a100", cfg, "admin", "", st0); err != nil {
		t.Fatal(err)
	}
	h.scaler = New(h.store, Config{Providers: map[string]kfleet.Provider{"sim": h.prov}, Cluster: "test",
		Queue: queue, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnAction: func(a Action) { h.applied = append(h.applied, summary(Plan{Actions: []Action{a}})...) },
		NewKey:   func(pool string) string { h.keys++; return fmt.Sprintf("%s-k%d", pool, h.keys) }})
	return h
}

// tick advances the clock by d and runs one tick, which must succeed.
func (h *scaleHarness) tick(d time.Duration) Plan {
	h.t.Helper()
	h.now = h.now.Add(d)
	plan, err := h.scaler.RunOnce(h.ctx, h.now)
	if err != nil {
		h.t.Fatalf("RunOnce at +%s: %v", h.now.Sub(st0), err)
	}
	return plan
}

// register boots the agent of a machine: a node of the pool carrying its id.
func (h *scaleHarness) register(machineID string) models.Node {
	h.t.Helper()
	req := models.NodeRegistration{Hostname: "host-" + machineID, Pool: "a100", MachineID: machineID}
	for i := range 8 {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-gpu%d", machineID, i), Index: i,
			Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	n, err := h.store.RegisterNode(h.ctx, req, "hash-"+machineID, h.now)
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// fresh has every node's agent report now: nodes must stay fresh to count as ready.
func (h *scaleHarness) fresh() {
	h.t.Helper()
	nodes, _ := h.store.Nodes(h.ctx)
	for _, n := range nodes {
		if n.State == models.NodeRemoved {
			continue
		}
		var ss []models.Reading
		for _, g := range n.GPUs {
			ss = append(ss, models.Reading{UUID: g.UUID, TS: h.now})
		}
		if _, err := h.store.IngestSamples(h.ctx, n.ID, ss, h.now); err != nil {
			h.t.Fatal(err)
		}
	}
}

// registerAll registers every running machine that has no node yet.
func (h *scaleHarness) registerAll() {
	h.t.Helper()
	nodes, _ := h.store.Nodes(h.ctx)
	have := map[string]bool{}
	for _, n := range nodes {
		have[n.MachineID] = true
	}
	for _, m := range h.machines() {
		if m.State == kfleet.StateRunning && !have[m.ID] {
			h.register(m.ID)
		}
	}
}

func (h *scaleHarness) machines() []kfleet.Machine {
	h.t.Helper()
	ms, err := h.prov.List(h.ctx, "a100")
	if err != nil {
		h.t.Fatal(err)
	}
	return ms
}

// intents writes the pool's live intents as "key:state".
func (h *scaleHarness) intents() string {
	h.t.Helper()
	ms, err := h.store.Machines(h.ctx, h.pool.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.IdempotencyKey+":"+m.State)
	}
	return strings.Join(out, " ")
}

func (h *scaleHarness) wantIntents(want string) {
	h.t.Helper()
	if got := h.intents(); got != want {
		h.t.Errorf("intents = %q, want %q", got, want)
	}
}

func (h *scaleHarness) wantMachines(n int) {
	h.t.Helper()
	if got := h.machines(); len(got) != n {
		h.t.Errorf("provider holds %d machines, want %d: %+v", len(got), n, got)
	}
}

func (h *scaleHarness) wantAlert(kind string) {
	h.t.Helper()
	as, _ := h.store.Alerts(h.ctx, models.AlertFilter{OpenOnly: true})
	for _, a := range as {
		if a.Kind == kind {
			return
		}
	}
	h.t.Errorf("open alerts = %+v, want one of kind %s", as, kind)
}

func TestScalerGrowsToMinAndCountsRegisteredMachines(t *testing.T) {
	cfg := poolConfig()
	cfg.MinNodes = 2
	h := newScaleHarness(t, cfg, sim.Options{BootLatency: time.Minute}, nil)
	plan := h.tick(0)
	if got := summary(plan); len(got) == 0 || got[0] != "scale-up +2 below-min" {
		t.Fatalf("first tick = %v, want a scale-up of 2 below min", got)
	}
	h.wantIntents("a100-k1:creating a100-k2:creating")
	h.wantMachines(2)
	if len(h.applied) != 1 || h.applied[0] != "scale-up +2 below-min" {
		t.Errorf("OnAction saw %v, want the scale-up", h.applied)
	}
	h.tick(time.Minute) // machines run; agents not registered yet: still booting
	h.wantIntents("a100-k1:creating a100-k2:creating")
	h.registerAll()
	plan = h.tick(30 * time.Second)
	h.wantIntents("a100-k1:ready a100-k2:ready")
	if len(plan.Sizes) != 1 || plan.Sizes[0].Size != 2 || plan.Sizes[0].Desired != 2 {
		t.Errorf("sizes = %+v, want 2 → 2", plan.Sizes)
	}
	evs, _ := h.store.ScalingEvents(h.ctx, h.pool.ID, 0)
	if len(evs) != 1 || evs[0].Reason != string(ReasonBelowMin) || evs[0].FromSize != 0 || evs[0].ToSize != 2 {
		t.Errorf("events = %+v, want the one scale-up 0→2", evs)
	}
	if sizes, _ := h.store.PoolSizes(h.ctx, h.pool.ID, st0, h.now); len(sizes) != 2 || sizes[1].Size != 2 {
		t.Errorf("size history = %+v, want a sample per minute ticked, the last of size 2", sizes)
	}
	states, _ := h.store.PoolScaleStates(h.ctx)
	if st := states[h.pool.ID]; st.Size != 2 || st.Desired != 2 || len(st.SkipList()) == 0 {
		t.Errorf("pool state = %+v, want size 2, desired 2 and the reasons not to act", st)
	}
}

func TestScalerBootTimeoutDeletesAndReplaces(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{}, nil)
	h.tick(0)
	first := h.machines()
	if len(first) != 1 {
		t.Fatalf("machines = %v, want 1", first)
	}
	h.tick(14 * time.Minute)
	h.wantIntents("a100-k1:creating")
	plan := h.tick(2 * time.Minute) // 16 m without an agent
	want := []string{"delete a100-k1 boot-timeout", "skip boot-backoff"}
	if got := summary(plan); len(got) < 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("tick after the boot timeout = %v, want %v first", got, want)
	}
	h.wantIntents("")
	h.wantMachines(0)
	// The replacement is asked for once the back-off (the boot timeout) has run out.
	h.tick(14 * time.Minute)
	h.wantIntents("")
	h.tick(time.Minute)
	h.wantIntents("a100-k2:creating")
	if ms := h.machines(); len(ms) != 1 || ms[0].ID == first[0].ID {
		t.Errorf("machines = %+v, want only the replacement", ms)
	}
	h.wantAlert(models.AlertBootTimeout)
}

func TestScalerCapacityErrorDropsIntents(t *testing.T) {
	cfg := poolConfig()
	cfg.MinNodes, cfg.Step = 3, 3
	h := newScaleHarness(t, cfg, sim.Options{Capacity: 1}, nil)
	h.tick(0)
	h.wantIntents("a100-k1:creating")
	h.wantMachines(1)
	h.wantAlert(models.AlertScaleFailed)
	for _, k := range []string{"a100-k2", "a100-k3"} {
		if m, _ := h.store.MachineByKey(h.ctx, k); m.State != models.MachineDeleted {
			t.Errorf("intent %s = %s, want deleted after the capacity error", k, m.State)
		}
	}
	// Stock comes back: the pool grows to its minimum and the alert is resolved.
	h.prov.SetCapacity(0)
	h.tick(time.Minute)
	h.wantMachines(4)
	if as, _ := h.store.Alerts(h.ctx, models.AlertFilter{OpenOnly: true}); len(as) != 0 {
		t.Errorf("open alerts = %+v, want the capacity alert resolved", as)
	}
}

func TestScalerLostReplyIsFoundByKey(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{Faults: sim.Faults{LostReplyRate: 1}}, nil)
	if _, err := h.scaler.RunOnce(h.ctx, h.now); err == nil {
		t.Fatal("RunOnce with a lost reply succeeded, want the error")
	}
	h.wantIntents("a100-k1:pending")
	h.wantMachines(1)
	h.tick(10 * time.Second) // reconcile finds the machine by its key
	h.wantIntents("a100-k1:creating")
	h.wantMachines(1)
}

func TestScalerUnknownMachines(t *testing.T) {
	for _, adopt := range []bool{false, true} {
		t.Run(fmt.Sprint("adopt=", adopt), func(t *testing.T) {
			cfg := poolConfig()
			cfg.AdoptUnknown = adopt
			h := newScaleHarness(t, cfg, sim.Options{}, nil)
			h.tick(0)
			h.registerAll()
			h.tick(time.Minute)
			// Someone else's machine (other cluster tag) and one of ours nobody asked for.
			for key, cluster := range map[string]string{"stray-1": "test", "theirs-1": "other"} {
				_, err := h.prov.Create(h.ctx, kfleet.CreateRequest{Pool: "a100", IdempotencyKey: key, Tags: kfleet.Tags(cluster, "a100", key)})
				if err != nil {
					t.Fatal(err)
				}
			}
			h.tick(time.Minute)
			keys := map[string]bool{}
			for _, m := range h.machines() {
				keys[m.IdempotencyKey] = true
			}
			if !keys["theirs-1"] {
				t.Error("another installation's machine was touched")
			}
			if keys["stray-1"] != adopt {
				t.Errorf("stray machine present = %v, want %v", keys["stray-1"], adopt)
			}
			if adopt {
				h.wantIntents("a100-k1:ready stray-1:creating")
			} else {
				h.wantIntents("a100-k1:ready")
				h.wantAlert(models.AlertOrphanDeleted)
			}
		})
	}
}

func TestScalerDrainsAndRemovesUnneededNodes(t *testing.T) {
	cfg := poolConfig()
	cfg.MinNodes = 3
	h := newScaleHarness(t, cfg, sim.Options{}, nil)
	h.tick(0)
	h.registerAll()
	h.tick(time.Minute)
	h.wantIntents("a100-k1:ready a100-k2:ready a100-k3:ready")
	cfg.MinNodes = 1
	if _, err := h.store.SavePoolConfig(h.ctx, "a100", cfg, "admin", "smaller", h.now); err != nil {
		t.Fatal(err)
	}
	fresh := h.fresh
	h.now = h.now.Add(10 * time.Minute)
	fresh()
	plan := h.tick(time.Second)
	if got := summary(plan); len(got) == 0 || got[0] != "drain 1 node-unneeded" {
		t.Fatalf("after 10m without tasks = %v, want node 1 drained", got)
	}
	fresh()
	plan = h.tick(time.Second)
	if got := summary(plan); len(got) == 0 || got[0] != "remove 1 drained-empty" {
		t.Fatalf("next tick = %v, want node 1 removed", got)
	}
	h.wantIntents("a100-k2:ready a100-k3:ready")
	h.wantMachines(2)
	// Cooldown after the scale-down, then the next node.
	h.now = h.now.Add(10 * time.Minute)
	fresh()
	h.tick(time.Second)
	fresh()
	h.tick(time.Second)
	h.wantIntents("a100-k3:ready")
	h.wantMachines(1)
	// Removed nodes leave the store's node list; one of three is left.
	if nodes, _ := h.store.Nodes(h.ctx); len(nodes) != 1 {
		t.Errorf("%d nodes left, want 1 (2 removed)", len(nodes))
	}
}

// TestScalerKeepsTheShortLane: the scaling loop never drains the short lane's reserve to
// shrink the pool. Long tasks hold nodes 1 and 2; node 3, the lane's reserve, is empty and
// unneeded; draining it would move the reserve onto a node full of long tasks.
func TestScalerKeepsTheShortLane(t *testing.T) {
	cfg := poolConfig()
	cfg.MinNodes = 3
	h := newScaleHarness(t, cfg, sim.Options{}, nil)
	h.tick(0)
	h.registerAll()
	h.tick(time.Minute)
	cfg.MinNodes, cfg.ShortLaneNodes = 1, 1
	if _, err := h.store.SavePoolConfig(h.ctx, "a100", cfg, "admin", "a short lane", h.now); err != nil {
		t.Fatal(err)
	}
	h.store.EnsureProject(h.ctx, "vision", h.now)
	nodes, _ := h.store.Nodes(h.ctx)
	for _, n := range nodes[:2] {
		task, _, err := h.store.CreateTask(h.ctx, models.NewTask{Project: "vision", Name: "long", Owner: "alice", GPUs: 8,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"train"}, DataReady: true}, models.DefaultTaskLimits, h.now)
		if err != nil {
			t.Fatal(err)
		}
		var gpus []int64
		for _, g := range n.GPUs {
			gpus = append(gpus, g.ID)
		}
		if err := h.store.PlaceTask(h.ctx, task.ID, gpus, false, "placed", h.now); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		h.now = h.now.Add(10 * time.Minute)
		h.fresh()
		plan := h.tick(time.Second)
		for _, a := range plan.Actions {
			if a.Kind == ActionDrain {
				t.Fatalf("tick drains %v, want the short lane's node %d kept", a, nodes[2].ID)
			}
		}
	}
	h.wantIntents("a100-k1:ready a100-k2:ready a100-k3:ready")
}

func TestScalerDemandFromTheQueue(t *testing.T) {
	queue := func(ctx context.Context, now time.Time) (scheduler.Snapshot, scheduler.Plan, error) {
		snap := scheduler.Snapshot{Pending: []scheduler.Pending{
			{ID: 1, Spec: "A100-80G", GPUs: 16, SubmittedAt: st0.Add(-5 * time.Minute)},
			{ID: 2, Spec: "A100-80G", GPUs: 64, SubmittedAt: st0.Add(-time.Hour)},
			{ID: 3, Spec: "", GPUs: 8, SubmittedAt: st0.Add(-time.Hour)},
			{ID: 4, Spec: "A100-80G", GPUs: 8, SubmittedAt: st0.Add(-time.Hour)},
		}}
		plan := scheduler.Plan{Waiting: []scheduler.Waiting{
			{TaskID: 1, Reason: scheduler.ReasonNoFreeGPUs, Spec: "A100-80G"},
			{TaskID: 2, Reason: scheduler.ReasonQuota},
			{TaskID: 3, Reason: scheduler.ReasonNoFreeGPUs},
			{TaskID: 4, Reason: scheduler.ReasonDataNotReady},
		}}
		return snap, plan, nil
	}
	h := newScaleHarness(t, poolConfig(), sim.Options{}, queue)
	h.register("static-1") // a node no provider made counts toward the size
	plan := h.tick(0)
	// Only task 1 counts: 16 GPUs are 2 nodes; the spec-any task has no pool taking any spec.
	if got := summary(plan); len(got) == 0 || got[0] != "scale-up +2 demand-waiting" {
		t.Errorf("tick = %v, want a scale-up of 2 for the demand", got)
	}
	if got := english.Say(plan.Actions[0].Detail); !strings.Contains(got, "16 GPUs of ready demand waited 5m > 2m") {
		t.Errorf("detail = %q", got)
	}
}

func TestScalerIdleReclaim(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{}, nil)
	n := h.register("static-1")
	h.store.EnsureProject(h.ctx, "vision", h.now)
	task, _, err := h.store.CreateTask(h.ctx, models.NewTask{Project: "vision", Name: "idle", Owner: "alice", GPUs: 1,
		Queue: models.QueueLong, Priority: "normal", Command: []string{"sleep"}, DataReady: true}, models.DefaultTaskLimits, h.now)
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := h.store.Nodes(h.ctx)
	if err := h.store.PlaceTask(h.ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", h.now); err != nil {
		t.Fatal(err)
	}
	h.store.ReportTaskStatus(h.ctx, n.ID, task.ID, models.TaskReport{State: models.ReportRunning, TS: h.now}, h.now)
	// The card reports idle readings through the 15-minute setup grace and 31 minutes more.
	for i := 0; i <= 46; i++ {
		at := h.now.Add(time.Duration(i) * time.Minute)
		h.store.IngestSamples(h.ctx, n.ID, []models.Reading{{UUID: "static-1-gpu0", TS: at, UtilPct: 0}}, at)
	}
	plan := h.tick(46 * time.Minute)
	if got := summary(plan); !slices.Contains(got, fmt.Sprintf("idle-notice %d idle-task", task.ID)) {
		t.Fatalf("tick = %v, want an idle notice", got)
	}
	for i := 47; i <= 77; i++ {
		at := st0.Add(time.Duration(i) * time.Minute)
		h.store.IngestSamples(h.ctx, n.ID, []models.Reading{{UUID: "static-1-gpu0", TS: at, UtilPct: 0}}, at)
	}
	plan = h.tick(31 * time.Minute)
	if got := summary(plan); !slices.Contains(got, fmt.Sprintf("reclaim %d no-answer", task.ID)) {
		t.Fatalf("tick after the grace = %v, want the task reclaimed", got)
	}
	row, _ := h.store.TaskByID(h.ctx, task.ID)
	if row.StopState != models.TaskReclaimed {
		t.Errorf("task stop state = %q, want reclaimed", row.StopState)
	}
}

func TestScalerDeletesLeftovers(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{}, nil)
	h.tick(0)
	h.registerAll()
	h.tick(time.Minute)
	// An intent given up while its create was still on the way: the machine shows up later.
	if err := h.store.RecordScaleUp(h.ctx, h.pool.ID, []string{"late-1"}, models.ScalingEvent{Kind: "scale-up"}, h.now); err != nil {
		t.Fatal(err)
	}
	if err := h.store.MarkMachineDeleted(h.ctx, "late-1", h.now); err != nil {
		t.Fatal(err)
	}
	if _, err := h.prov.Create(h.ctx, kfleet.CreateRequest{Pool: "a100", IdempotencyKey: "late-1", Tags: kfleet.Tags("test", "a100", "late-1")}); err != nil {
		t.Fatal(err)
	}
	h.wantMachines(2)
	h.tick(time.Minute)
	h.wantMachines(1)
	h.wantIntents("a100-k1:ready")
	evs, _ := h.store.ScalingEvents(h.ctx, h.pool.ID, 1)
	if len(evs) != 1 || evs[0].Reason != string(ReasonLeftoverMachine) {
		t.Errorf("last event = %+v, want the leftover deleted", evs)
	}
}

func TestScalerCreateFailuresRetryThenGiveUp(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{Faults: sim.Faults{CreateErrorRate: 1}}, nil)
	if _, err := h.scaler.RunOnce(h.ctx, h.now); err == nil {
		t.Fatal("RunOnce with a failing provider succeeded, want the error")
	}
	h.wantIntents("a100-k1:pending")
	h.wantAlert(models.AlertScaleFailed)
	h.tick(5 * time.Minute) // the create is tried again, and fails again: still pending
	h.wantIntents("a100-k1:pending")
	h.prov.SetFaults(sim.Faults{})
	h.tick(5 * time.Minute) // now it goes through, with the same key
	h.wantIntents("a100-k1:creating")
	h.wantMachines(1)
	if ms := h.machines(); ms[0].IdempotencyKey != "a100-k1" {
		t.Errorf("machine key = %s, want the intent's a100-k1", ms[0].IdempotencyKey)
	}
	h.prov.SetFaults(sim.Faults{CreateErrorRate: 1})
	h.tick(16 * time.Minute) // never registered: given up
	if m, _ := h.store.MachineByKey(h.ctx, "a100-k1"); m.State != models.MachineDeleted {
		t.Errorf("intent a100-k1 = %s, want deleted at the boot timeout", m.State)
	}
	h.now = h.now.Add(15 * time.Minute) // after the back-off, the replacement fails
	if _, err := h.scaler.RunOnce(h.ctx, h.now); err == nil {
		t.Error("RunOnce whose replacement failed to create succeeded, want the error")
	}
}
