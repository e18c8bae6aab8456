package scaler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kashi/fleet/sim"
	"kashi/models"
)

// TestScalerReclaimPolicyPerTask: each running task is judged under its pool's reclaim
// settings and its project's override: the pool says 10 idle minutes; one project waits two
// hours, one opts out.
func TestScalerReclaimPolicyPerTask(t *testing.T) {
	cfg := poolConfig()
	cfg.ReclaimIdleS, cfg.ReclaimSetupGraceS = 600, 60
	h := newScaleHarness(t, cfg, sim.Options{}, nil)
	n := h.register("static-1")
	nodes, _ := h.store.Nodes(h.ctx)
	ids := map[string]int64{}
	for i, project := range []string{"vision", "patient", "optout"} {
		p, err := h.store.EnsureProject(h.ctx, project, h.now)
		if err != nil {
			t.Fatal(err)
		}
		task, _, err := h.store.CreateTask(h.ctx, models.NewTask{Project: project, Name: "idle", Owner: "alice", GPUs: 1,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"sleep"}, DataReady: true}, models.DefaultTaskLimits, h.now)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.store.PlaceTask(h.ctx, task.ID, []int64{nodes[0].GPUs[i].ID}, false, "placed", h.now); err != nil {
			t.Fatal(err)
		}
		h.store.ReportTaskStatus(h.ctx, n.ID, task.ID, models.TaskReport{State: models.ReportRunning, TS: h.now}, h.now)
		ids[project] = task.ID
		over := map[string]models.ReclaimOverride{"patient": {IdleS: 7200}, "optout": {Never: true}}[project]
		if err := h.store.SetReclaimOverride(h.ctx, "lead", p.ID, over, h.now); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i <= 12; i++ {
		at := h.now.Add(time.Duration(i) * time.Minute)
		var rs []models.Reading
		for g := range 3 {
			rs = append(rs, models.Reading{UUID: fmt.Sprintf("static-1-gpu%d", g), TS: at, UtilPct: 0})
		}
		h.store.IngestSamples(h.ctx, n.ID, rs, at)
	}
	got := summary(h.tick(12 * time.Minute))
	if want := fmt.Sprintf("idle-notice %d idle-task", ids["vision"]); !slices.Contains(got, want) {
		t.Errorf("tick = %v, want %q", got, want)
	}
	for _, p := range []string{"patient", "optout"} {
		for _, a := range got {
			if a == fmt.Sprintf("idle-notice %d idle-task", ids[p]) {
				t.Errorf("tick = %v: project %s's task got a notice", got, p)
			}
		}
	}
	// The queue's estimates read when each is stopped if its cards stay idle: the notice's
	// time plus the grace; the patient project's later; never the one that opted out.
	cps, _ := h.store.ConfiguredPools(h.ctx)
	nodes, _ = h.store.Nodes(h.ctx)
	tasks, _ := h.store.ActiveTasks(h.ctx)
	allocs, _ := h.store.OpenAllocations(h.ctx)
	fc, err := h.scaler.ReclaimForecast(h.ctx, h.now, cps, nodes, tasks, allocs)
	if err != nil {
		t.Fatal(err)
	}
	if want := h.now.Add(30 * time.Minute); !fc[ids["vision"]].Equal(want) {
		t.Errorf("forecast of vision's task %v, want %v (notice + grace)", fc[ids["vision"]], want)
	}
	if p := fc[ids["patient"]]; !p.After(h.now.Add(2 * time.Hour)) {
		t.Errorf("forecast of patient's task %v, want after 2 h of idle time", p)
	}
	if o, ok := fc[ids["optout"]]; ok {
		t.Errorf("forecast of the opted-out task %v, want none", o)
	}
}

// TestScalerNeverReclaimsAServiceAsIdle: a service's cards wait for requests; a batch task
// idle as long beside it gets the notice, the service none.
func TestScalerNeverReclaimsAServiceAsIdle(t *testing.T) {
	cfg := poolConfig()
	cfg.ReclaimIdleS, cfg.ReclaimSetupGraceS = 600, 60
	h := newScaleHarness(t, cfg, sim.Options{}, nil)
	n := h.register("static-1")
	nodes, _ := h.store.Nodes(h.ctx)
	if _, err := h.store.EnsureProject(h.ctx, "vision", h.now); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for i, kind := range []string{models.TaskKindBatch, models.TaskKindService} {
		nt := models.NewTask{Project: "vision", Name: kind, Owner: "alice", GPUs: 1, Kind: kind,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"sleep"}, DataReady: true}
		if kind == models.TaskKindService {
			nt.Service = models.ServiceSpec{Model: "qwen", MetricsPort: 8000}
		}
		task, _, err := h.store.CreateTask(h.ctx, nt, models.DefaultTaskLimits, h.now)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.store.PlaceTask(h.ctx, task.ID, []int64{nodes[0].GPUs[i].ID}, false, "placed", h.now); err != nil {
			t.Fatal(err)
		}
		h.store.ReportTaskStatus(h.ctx, n.ID, task.ID, models.TaskReport{State: models.ReportRunning, TS: h.now}, h.now)
		ids[kind] = task.ID
	}
	for i := 0; i <= 12; i++ {
		at := h.now.Add(time.Duration(i) * time.Minute)
		var rs []models.Reading
		for g := range 2 {
			rs = append(rs, models.Reading{UUID: fmt.Sprintf("static-1-gpu%d", g), TS: at, UtilPct: 0})
		}
		h.store.IngestSamples(h.ctx, n.ID, rs, at)
	}
	got := summary(h.tick(12 * time.Minute))
	if want := fmt.Sprintf("idle-notice %d idle-task", ids[models.TaskKindBatch]); !slices.Contains(got, want) {
		t.Errorf("tick = %v, want %q", got, want)
	}
	if bad := fmt.Sprintf("idle-notice %d idle-task", ids[models.TaskKindService]); slices.Contains(got, bad) {
		t.Errorf("tick = %v: the service got an idle notice", got)
	}
}
