package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// ft0 is the fleet tests' fixed clock.
var ft0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// a100Config is a valid, enabled configuration of an A100 pool.
func a100Config() models.PoolConfig {
	return models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x", Image: "kashi-agent",
		Enabled: true, MinNodes: 1, MaxNodes: 6, Step: 2}
}

// fleetNode registers an A100 node of pool with a machine id.
func fleetNode(t *testing.T, s *models.Store, host, pool, machineID string) models.Node {
	t.Helper()
	req := models.NodeRegistration{Hostname: host, Pool: pool, MachineID: machineID}
	for i := range 2 {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-gpu%d", host, i), Index: i,
			Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	n, err := s.RegisterNode(context.Background(), req, "hash-"+host, ft0)
	if err != nil {
		t.Fatalf("RegisterNode(%s) = %v", host, err)
	}
	return n
}

func TestPoolConfigVersions(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		cfg := a100Config()
		p, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "first", ft0)
		if err != nil || p.Version != 1 || p.Spec != "A100-80G" || p.Provider != "sim" || p.GPUsPerNode != 8 {
			t.Fatalf("SavePoolConfig = %+v, %v; want version 1 of a new pool", p, err)
		}
		if again, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "same", ft0.Add(time.Minute)); err != nil || again.Version != 1 {
			t.Errorf("saving an unchanged config = version %d, %v; want 1 (no new version)", again.Version, err)
		}
		cfg.MaxNodes = 10
		if p, err = s.SavePoolConfig(ctx, "a100", cfg, "lead", "more room", ft0.Add(time.Hour)); err != nil || p.Version != 2 {
			t.Fatalf("second save = %+v, %v; want version 2", p, err)
		}
		vs, err := s.PoolConfigVersions(ctx, "a100")
		if err != nil || len(vs) != 2 {
			t.Fatalf("PoolConfigVersions = %d versions, %v; want 2", len(vs), err)
		}
		if vs[0].Version != 2 || vs[0].By != "lead" || vs[0].Note != "more room" || !vs[0].At.Equal(ft0.Add(time.Hour)) {
			t.Errorf("newest version = %+v", vs[0])
		}
		var before, after models.PoolConfig
		json.Unmarshal([]byte(vs[0].Before), &before)
		json.Unmarshal([]byte(vs[0].After), &after)
		if before.MaxNodes != 6 || after.MaxNodes != 10 {
			t.Errorf("version 2 before/after max_nodes = %d/%d, want 6/10", before.MaxNodes, after.MaxNodes)
		}
		if vs[1].Before != "null" {
			t.Errorf("version 1 before = %q, want null", vs[1].Before)
		}
		p, err = s.RollBackPoolConfig(ctx, "a100", 1, "admin", ft0.Add(2*time.Hour))
		if err != nil || p.Version != 3 || p.Config.MaxNodes != 6 {
			t.Fatalf("RollBackPoolConfig to v1 = %+v, %v; want version 3 with max 6", p, err)
		}
		got, err := s.ConfiguredPoolByName(ctx, "a100")
		if err != nil || got.Version != 3 || got.Config != a100Config() || got.UpdatedBy != "admin" {
			t.Errorf("ConfiguredPoolByName = %+v, %v", got, err)
		}
		if vs, _ := s.PoolConfigVersions(ctx, "a100"); vs[0].Note != "roll back to v1" {
			t.Errorf("rollback note = %q", vs[0].Note)
		}
		if _, err := s.RollBackPoolConfig(ctx, "a100", 9, "admin", ft0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("roll back to a missing version = %v, want ErrNotFound", err)
		}
	})
}

func TestPoolConfigRejects(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		bad := map[string]func(*models.PoolConfig){
			"max_nodes":      func(c *models.PoolConfig) { c.MaxNodes = 0 },
			"gpus_per_node":  func(c *models.PoolConfig) { c.GPUsPerNode = 0 },
			"memory_low_pct": func(c *models.PoolConfig) { c.MemoryHighPct, c.MemoryLowPct = 50, 60 },
			"flavor":         func(c *models.PoolConfig) { c.Flavor = `a"b` },
			"unneeded_s":     func(c *models.PoolConfig) { c.UnneededS = -1 },
			"reserved_min":   func(c *models.PoolConfig) { c.ReservedMin = 7 },
		}
		for field, mutate := range bad {
			cfg := a100Config()
			mutate(&cfg)
			_, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", ft0)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != field {
				t.Errorf("SavePoolConfig with bad %s = %v, want a FieldError on it", field, err)
			}
		}
		// A pool with nodes keeps its spec.
		fleetNode(t, s, "n1", "a100", "m-1")
		cfg := a100Config()
		cfg.Spec = "H100-80G"
		var fe *models.FieldError
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", ft0); !errors.As(err, &fe) || fe.Field != "spec" {
			t.Errorf("changing the spec of a pool with nodes = %v, want a FieldError on spec", err)
		}
	})
}

func TestMachineIntents(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		if err != nil {
			t.Fatal(err)
		}
		ev := models.ScalingEvent{Kind: "scale-up", FromSize: 0, ToSize: 2, Reason: "below-min", Detail: "size 0 < min 2"}
		if err := s.RecordScaleUp(ctx, p.ID, []string{"k1", "k2"}, ev, ft0); err != nil {
			t.Fatal(err)
		}
		ms, err := s.Machines(ctx, p.ID)
		if err != nil || len(ms) != 2 || ms[0].State != models.MachinePending || ms[0].IdempotencyKey != "k1" {
			t.Fatalf("Machines after RecordScaleUp = %+v, %v; want two pending intents", ms, err)
		}
		if err := s.RecordScaleUp(ctx, p.ID, []string{"k2"}, ev, ft0); err == nil {
			t.Error("RecordScaleUp with a used key succeeded, want an error")
		}
		states, _ := s.PoolScaleStates(ctx)
		if st := states[p.ID]; st.LastScaleUpAt == nil || !st.LastScaleUpAt.Equal(ft0) {
			t.Errorf("last scale-up = %v, want %v", st.LastScaleUpAt, ft0)
		}
		for i, at := range []time.Time{ft0.Add(10 * time.Second), ft0.Add(40 * time.Second), ft0.Add(70 * time.Second)} {
			if err := s.RecordPoolSize(ctx, p.ID, i, i+1, 8*i, at); err != nil {
				t.Fatal(err)
			}
		}
		sizes, err := s.PoolSizes(ctx, p.ID, ft0, ft0.Add(time.Hour))
		if err != nil || len(sizes) != 2 || !sizes[0].At.Equal(ft0) || sizes[0].Size != 1 || sizes[1].DemandGPUs != 16 {
			t.Errorf("PoolSizes = %+v, %v; want one sample per minute, the last of each", sizes, err)
		}
		evs, _ := s.ScalingEvents(ctx, p.ID, 10)
		if len(evs) != 1 || evs[0].Reason != "below-min" || evs[0].ToSize != 2 || evs[0].Detail != ev.Detail {
			t.Errorf("ScalingEvents = %+v; want the scale-up", evs)
		}

		if err := s.SetMachineProviderID(ctx, "k1", "i-abc"); err != nil {
			t.Fatal(err)
		}
		n := fleetNode(t, s, "n1", "a100", "i-abc")
		if err := s.MarkMachineReady(ctx, "k1", n.ID, ft0.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		m, _ := s.MachineByKey(ctx, "k1")
		if m.State != models.MachineReady || m.ProviderID != "i-abc" || m.NodeID == nil || *m.NodeID != n.ID || m.ReadyAt == nil {
			t.Errorf("ready machine = %+v", m)
		}
		if err := s.SetMachineProviderID(ctx, "k1", "i-other"); !errors.Is(err, models.ErrConflict) {
			t.Errorf("SetMachineProviderID on a ready intent = %v, want ErrConflict", err)
		}
		if err := s.SetMachineProviderID(ctx, "k2", "i-k2"); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkMachineDeleting(ctx, "k2", "boot timeout", ft0.Add(20*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkMachineDeleted(ctx, "k2", ft0.Add(21*time.Minute)); err != nil {
			t.Fatal(err)
		}
		m, _ = s.MachineByKey(ctx, "k2")
		if m.State != models.MachineDeleted || m.Reason != "boot timeout" || m.DeletedAt == nil {
			t.Errorf("deleted machine = %+v", m)
		}
		if ms, _ := s.Machines(ctx, p.ID); len(ms) != 1 {
			t.Errorf("Machines lists %d, want 1 (deleted ones are left out)", len(ms))
		}
		gone, err := s.DeletedMachineIDs(ctx, []string{"k1", "i-abc", "k2", "i-k2", "k9"})
		if err != nil || len(gone) != 2 || !gone["k2"] || !gone["i-k2"] {
			t.Errorf("DeletedMachineIDs = %v, %v; want k2 and its provider id i-k2", gone, err)
		}
		if _, err := s.AdoptMachine(ctx, p.ID, "k1", "i-zzz", ft0); !errors.Is(err, models.ErrConflict) {
			t.Errorf("AdoptMachine with a used key = %v, want ErrConflict", err)
		}
		a, err := s.AdoptMachine(ctx, p.ID, "found-1", "i-found", ft0)
		if err != nil || !a.Adopted || a.State != models.MachineCreating {
			t.Errorf("AdoptMachine = %+v, %v", a, err)
		}
	})
}

func TestDrainUndrainRemove(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		if err := s.RecordScaleUp(ctx, p.ID, []string{"k1"}, models.ScalingEvent{Kind: "scale-up"}, ft0); err != nil {
			t.Fatal(err)
		}
		s.SetMachineProviderID(ctx, "k1", "i-1")
		n := fleetNode(t, s, "n1", "a100", "i-1")
		s.MarkMachineReady(ctx, "k1", n.ID, ft0)

		if _, err := s.RemoveNode(ctx, n.ID, models.ScalingEvent{Kind: "remove"}, ft0); !errors.Is(err, models.ErrConflict) {
			t.Errorf("RemoveNode of a ready node = %v, want ErrConflict", err)
		}
		drain := models.ScalingEvent{Kind: "drain", FromSize: 2, ToSize: 1, Reason: "node-unneeded", Detail: "no task for 12m"}
		if err := s.DrainNode(ctx, n.ID, drain, ft0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.DrainNode(ctx, n.ID, drain, ft0.Add(time.Minute)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("draining twice = %v, want ErrConflict", err)
		}
		st, _ := s.NodeScaleStates(ctx)
		if d := st[n.ID].DrainSince; d == nil || !d.Equal(ft0.Add(time.Minute)) || st[n.ID].DrainReason != "no task for 12m" {
			t.Errorf("drain state = %+v", st[n.ID])
		}
		ps, _ := s.PoolScaleStates(ctx)
		if d := ps[p.ID].LastScaleDownAt; d == nil || !d.Equal(ft0.Add(time.Minute)) {
			t.Errorf("last scale-down = %v", d)
		}
		if err := s.UndrainNode(ctx, n.ID, models.ScalingEvent{Kind: "undrain"}, ft0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.UndrainNode(ctx, n.ID, models.ScalingEvent{Kind: "undrain"}, ft0); !errors.Is(err, models.ErrConflict) {
			t.Errorf("undraining a ready node = %v, want ErrConflict", err)
		}

		// A drained node that holds a task is not removed.
		if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
			t.Fatal(err)
		}
		task, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "alice", GPUs: 1,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"true"}, DataReady: true}, models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", ft0); err != nil {
			t.Fatal(err)
		}
		if err := s.DrainNode(ctx, n.ID, drain, ft0.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RemoveNode(ctx, n.ID, models.ScalingEvent{Kind: "remove"}, ft0); !errors.Is(err, models.ErrConflict) {
			t.Errorf("RemoveNode of a busy node = %v, want ErrConflict", err)
		}
		if err := s.ReportTaskStatus(ctx, n.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: ft0.Add(4 * time.Minute)}, ft0.Add(4*time.Minute)); err != nil {
			t.Fatal(err)
		}
		rm, err := s.RemoveNode(ctx, n.ID, models.ScalingEvent{Kind: "remove", Detail: "drained and empty"}, ft0.Add(5*time.Minute))
		if err != nil || rm.Key != "k1" || rm.ProviderID != "i-1" {
			t.Fatalf("RemoveNode = %+v, %v; want machine k1/i-1", rm, err)
		}
		m, _ := s.MachineByKey(ctx, "k1")
		if m.State != models.MachineDeleting || m.Reason != "drained and empty" {
			t.Errorf("machine after RemoveNode = %+v, want deleting", m)
		}
		if nodes, _ = s.Nodes(ctx); len(nodes) != 0 {
			t.Errorf("Nodes() after removal = %+v, want the removed node left out", nodes)
		}
		evs, _ := s.ScalingEvents(ctx, p.ID, 0)
		if len(evs) != 5 || evs[0].Kind != "remove" || evs[0].NodeID == nil || evs[0].MachineKey != "k1" {
			t.Errorf("events = %+v; want 5, the last a remove of k1", evs)
		}
	})
}

func TestSetUnneeded(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := fleetNode(t, s, "n1", "a100", "")
		b := fleetNode(t, s, "n2", "a100", "")
		if err := s.SetUnneeded(ctx, map[int64]time.Time{a.ID: ft0, b.ID: ft0.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetUnneeded(ctx, map[int64]time.Time{a.ID: ft0}); err != nil {
			t.Fatal(err)
		}
		st, _ := s.NodeScaleStates(ctx)
		if u := st[a.ID].UnneededSince; u == nil || !u.Equal(ft0) {
			t.Errorf("node a unneeded since %v, want %v", u, ft0)
		}
		if u := st[b.ID].UnneededSince; u != nil {
			t.Errorf("node b unneeded since %v, want cleared", u)
		}
	})
}

func TestAlerts(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		boot := func(params ...string) models.AlertInput {
			return models.AlertInput{Kind: models.AlertBootTimeout, Subject: "a100/k1", Code: "boot_timeout", Params: params,
				Pool: "a100", NodeID: 7}
		}
		a, created, err := s.RaiseAlert(ctx, boot("a100", "k1"), ft0)
		if err != nil || !created {
			t.Fatalf("RaiseAlert = %+v, %v, %v", a, created, err)
		}
		if a.Severity != models.SeverityWarning || a.NodeID != 7 || a.Pool != "a100" {
			t.Errorf("new alert = %+v, want a warning about node 7 of pool a100", a)
		}
		b, created, err := s.RaiseAlert(ctx, boot("a100", "k2"), ft0.Add(time.Minute))
		if err != nil || created || b.ID != a.ID || b.Count != 2 || !slices.Equal(b.AlertParams(), []string{"a100", "k2"}) {
			t.Errorf("raising again = %+v, created %v, %v; want the same alert counted twice", b, created, err)
		}
		if err := s.MarkAlertSent(ctx, a.ID, ft0); err != nil {
			t.Fatal(err)
		}
		if un, _ := s.Alerts(ctx, models.AlertFilter{UnsentOnly: true}); len(un) != 0 {
			t.Errorf("unsent alerts = %+v, want none", un)
		}
		if err := s.ResolveAlert(ctx, models.AlertBootTimeout, "a100/k1", ft0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, created, _ := s.RaiseAlert(ctx, boot("again"), ft0.Add(2*time.Hour)); !created {
			t.Error("raising after the resolve did not open a new alert")
		}
		open, _ := s.Alerts(ctx, models.AlertFilter{OpenOnly: true})
		all, _ := s.Alerts(ctx, models.AlertFilter{})
		if len(open) != 1 || len(all) != 2 || !slices.Equal(open[0].AlertParams(), []string{"again"}) {
			t.Errorf("open = %+v, all = %d; want 1 open of 2", open, len(all))
		}
	})
}

// TestAlertsRaisedAtOnce: raises of one alert at once (refused registrations raise them from
// requests, beside the loops) open one alert that counts them all.
func TestAlertsRaisedAtOnce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const rounds, raises = 8, 16
		var created atomic.Int32
		for r := range rounds {
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range raises {
				wg.Go(func() {
					<-start
					in := models.AlertInput{Kind: models.AlertGPUMemory, Subject: "gpu " + strconv.Itoa(r), Code: "gpu_memory", Params: []string{strconv.Itoa(i)}}
					_, c, err := s.RaiseAlert(ctx, in, ft0)
					if err != nil {
						t.Errorf("RaiseAlert %d of round %d = %v", i, r, err)
					}
					if c {
						created.Add(1)
					}
				})
			}
			close(start)
			wg.Wait()
		}
		all, err := s.Alerts(ctx, models.AlertFilter{})
		if err != nil || len(all) != rounds || created.Load() != rounds {
			t.Fatalf("alerts = %d (%v), %d created; want %d, each created once", len(all), err, created.Load(), rounds)
		}
		for _, a := range all {
			if a.Count != raises {
				t.Errorf("alert %s raised %d times, want %d", a.Subject, a.Count, raises)
			}
		}
	})
}

func TestKeepAndReclaim(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		fleetNode(t, s, "n1", "a100", "")
		answerer(t, s, "vision", "alice")
		task, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "alice", GPUs: 1,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"true"}, DataReady: true}, models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.KeepTask(ctx, task.ID, "alice", 2*time.Hour, 2, time.UTC, ft0); !errors.Is(err, models.ErrConflict) {
			t.Errorf("keeping a queued task = %v, want ErrConflict", err)
		}
		nodes, _ := s.Nodes(ctx)
		s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", ft0)
		if err := s.SetReclaimNotice(ctx, task.ID, ft0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		rs, _ := s.TaskReclaims(ctx)
		if n := rs[task.ID].NoticeAt; n == nil || !n.Equal(ft0.Add(time.Minute)) {
			t.Fatalf("notice at %v", n)
		}
		shanghai := time.FixedZone("CST", 8*3600)
		// 10:00 UTC is 18:00 in Shanghai; two keeps that day, the third refused; 16:30 UTC
		// is past midnight there: a new day.
		for i, at := range []time.Time{ft0, ft0.Add(2 * time.Hour)} {
			until, err := s.KeepTask(ctx, task.ID, "alice", 2*time.Hour, 2, shanghai, at)
			if err != nil || !until.Equal(at.Add(2*time.Hour)) {
				t.Fatalf("keep %d = %v, %v", i+1, until, err)
			}
		}
		rs, _ = s.TaskReclaims(ctx)
		if rs[task.ID].NoticeAt != nil || rs[task.ID].KeepsOnDay != 2 {
			t.Errorf("after two keeps: %+v; want the notice withdrawn and 2 keeps", rs[task.ID])
		}
		if _, err := s.KeepTask(ctx, task.ID, "alice", 2*time.Hour, 2, shanghai, ft0.Add(4*time.Hour)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("third keep of the day = %v, want ErrConflict", err)
		}
		if _, err := s.KeepTask(ctx, task.ID, "alice", 2*time.Hour, 2, shanghai, ft0.Add(6*time.Hour+30*time.Minute)); err != nil {
			t.Errorf("first keep of the next day = %v", err)
		}
		events, _ := s.TaskEvents(ctx, task.ID)
		if last := events[len(events)-1]; last.From != models.TaskStarting || last.To != models.TaskStarting {
			t.Errorf("keep event = %+v, want a logged keep", last)
		}
		if err := s.ReclaimTask(ctx, task.ID, "idle 30m, no answer", ft0.Add(9*time.Hour)); err != nil {
			t.Fatal(err)
		}
		row, _ := s.TaskByID(ctx, task.ID)
		if row.StopState != models.TaskReclaimed || row.StopReason != "idle 30m, no answer" {
			t.Errorf("reclaimed task stop = %q %q", row.StopState, row.StopReason)
		}
	})
}

func TestPoolMemoryAndQueuedSince(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := fleetNode(t, s, "n1", "a100", "")
		fleetNode(t, s, "other", "b-pool", "")
		var samples []models.Reading
		for i := range 4 {
			at := ft0.Add(time.Duration(i) * 30 * time.Second)
			samples = append(samples, models.Reading{UUID: "n1-gpu0", TS: at, MemoryUsedMiB: 81920},
				models.Reading{UUID: "n1-gpu1", TS: at, MemoryUsedMiB: int64(i) * 8192})
		}
		if _, err := s.IngestSamples(ctx, n.ID, samples, ft0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		pts, err := s.PoolMemory(ctx, n.PoolID, ft0, ft0.Add(2*time.Minute), time.Minute)
		if err != nil || len(pts) != 2 {
			t.Fatalf("PoolMemory = %+v, %v; want 2 one-minute buckets", pts, err)
		}
		// Bucket 1: (2×80G + 0+8G) / 4×80G = 52.5%; bucket 2: (160G + 16G+24G) / 320G = 62.5%.
		if !pts[0].At.Equal(ft0) || pts[0].UsedPct != 52.5 || pts[1].UsedPct != 62.5 {
			t.Errorf("PoolMemory = %+v, want 52.5%% at %v then 62.5%%", pts, ft0)
		}

		s.EnsureProject(ctx, "vision", ft0)
		nt := models.NewTask{Project: "vision", Name: "x", Owner: "alice", GPUs: 1, Queue: models.QueueLong,
			Priority: "normal", Command: []string{"true"}}
		waiting, _, _ := s.CreateTask(ctx, nt, models.DefaultTaskLimits, ft0)
		nt.DataReady = true
		ready, _, _ := s.CreateTask(ctx, nt, models.DefaultTaskLimits, ft0.Add(time.Minute))
		if err := s.MarkTaskReady(ctx, waiting.ID, "data arrived", ft0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		qs, err := s.QueuedSince(ctx)
		if err != nil || !qs[ready.ID].Equal(ft0.Add(time.Minute)) || !qs[waiting.ID].Equal(ft0.Add(time.Hour)) {
			t.Errorf("QueuedSince = %v, %v; want ready since submit, the other since its data came", qs, err)
		}
	})
}

func TestLeaderLock(t *testing.T) {
	ctx := context.Background()
	key := rand.Int64()
	t.Run("sqlite", func(t *testing.T) {
		s := modelstest.SQLite(t, models.Options{})
		l, err := s.LeaderLock(ctx, key)
		if err != nil || l == nil || l.Check(ctx) != nil {
			t.Fatalf("LeaderLock on SQLite = %v, %v; want held", l, err)
		}
		l.Release()
	})
	t.Run("postgres", func(t *testing.T) {
		a := modelstest.Postgres(t, models.Options{})
		b := modelstest.Postgres(t, models.Options{})
		la, err := a.LeaderLock(ctx, key)
		if err != nil || la == nil {
			t.Fatalf("first LeaderLock = %v, %v; want held", la, err)
		}
		if lb, err := b.LeaderLock(ctx, key); err != nil || lb != nil {
			t.Fatalf("second replica's LeaderLock = %v, %v; want nil, nil", lb, err)
		}
		if err := la.Check(ctx); err != nil {
			t.Errorf("Check of the held lock = %v", err)
		}
		la.Release()
		lb, err := b.LeaderLock(ctx, key)
		if err != nil || lb == nil {
			t.Fatalf("LeaderLock after release = %v, %v; want held", lb, err)
		}
		lb.Release()
	})
}

// TestPoolRegion: a pool's region and zone follow its configuration, so the board and
// placement read them from the pool; its list price is kept with its source.
func TestPoolRegion(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		cfg := models.PoolConfig{Provider: "ctyun", Spec: "A100-80G", GPUsPerNode: 8, Region: "cn-gz1", Zone: "cn-gz1-a"}
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", now); err != nil {
			t.Fatal(err)
		}
		cfg.Region, cfg.Zone = "cn-sh1", ""
		p, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", now)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.ConfiguredPoolByName(ctx, "a100")
		if err != nil || got.Region != "cn-sh1" || got.Zone != "" || p.Region != "cn-sh1" {
			t.Errorf("pool after a move = %+v, %v; want region cn-sh1 without zone", got.Pool, err)
		}
		if err := s.SetPoolPrice(ctx, p.ID, 31012, models.PriceFromProvider, now); err != nil {
			t.Fatal(err)
		}
		states, err := s.PoolScaleStates(ctx)
		if st := states[p.ID]; err != nil || st.HourlyPriceFen != 31012 || st.PriceSource != models.PriceFromProvider {
			t.Errorf("pool price = %d from %q, %v; want 31012 from the provider", st.HourlyPriceFen, st.PriceSource, err)
		}
	})
}

func TestAckAlerts(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		in := models.AlertInput{Kind: models.AlertGPUMemory, Subject: "g0", TaskID: 3, Code: "gpu_memory"}
		a, _, _ := s.RaiseAlert(ctx, in, ft0)
		in.Subject = "g1"
		b, _, _ := s.RaiseAlert(ctx, in, ft0)
		s.ResolveAlert(ctx, models.AlertGPUMemory, "g1", ft0.Add(time.Minute))
		if n, err := s.AckAlerts(ctx, []int64{a.ID, b.ID}, "ana", ft0.Add(2*time.Minute)); n != 1 || err != nil {
			t.Fatalf("AckAlerts = %d, %v; want the open one marked", n, err)
		}
		if n, err := s.AckAlerts(ctx, []int64{a.ID}, "bo", ft0.Add(3*time.Minute)); n != 0 || err != nil {
			t.Errorf("AckAlerts again = %d, %v; want nothing marked", n, err)
		}
		all, _ := s.Alerts(ctx, models.AlertFilter{})
		for _, x := range all {
			acked := x.AckedAt != nil && x.AckedAt.Equal(ft0.Add(2*time.Minute)) && x.AckedBy == "ana"
			if acked != (x.ID == a.ID) {
				t.Errorf("alert %d acked by %q at %v", x.ID, x.AckedBy, x.AckedAt)
			}
		}
	})
}
