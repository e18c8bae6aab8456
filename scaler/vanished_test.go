package scaler

import (
	"testing"
	"time"

	"kashi/fleet/sim"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/phrase"
)

// TestScalerVanishedMachineNamesItsNode: a ready machine the provider no longer lists raises
// an alert whose sentence names its node by hostname, as people know it, not by its id.
func TestScalerVanishedMachineNamesItsNode(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{BootLatency: time.Minute}, nil)
	h.tick(0)
	h.tick(time.Minute)
	h.registerAll()
	h.fresh()
	h.tick(30 * time.Second)
	h.wantIntents("a100-k1:ready")
	ms := h.machines()
	if len(ms) != 1 {
		t.Fatalf("provider holds %+v, want one machine", ms)
	}
	if err := h.prov.Delete(h.ctx, ms[0].ID); err != nil { // behind the loop's back
		t.Fatal(err)
	}
	h.fresh()
	h.tick(30 * time.Second)
	as, _ := h.store.Alerts(h.ctx, models.AlertFilter{OpenOnly: true})
	var got []string
	for _, a := range as {
		if a.Kind == models.AlertMachineVanished {
			got = append(got, phrase.Locale{Lang: phrase.LangEN}.AlertSentence(a.Code, a.AlertParams(), a.Message))
		}
	}
	want := "Pool a100: machine " + ms[0].ID + " (a100-k1) of node host-" + ms[0].ID + " is no longer listed by the provider."
	if len(got) != 1 || got[0] != want {
		t.Errorf("vanished alerts = %q, want %q", got, want)
	}
}

// TestScalerVanishedMachineRerunsItsTasks: the cloud takes back a ready machine whose node
// runs a task (a spot machine reclaimed: the sim provider no longer lists it). The scaling
// loop must stop what ran there: at its next pass the task is queued again for its next
// attempt, the lost one recorded as lost, rather than left running on a machine that is gone
// until its node has been silent long enough to be given up.
func TestScalerVanishedMachineRerunsItsTasks(t *testing.T) {
	h := newScaleHarness(t, poolConfig(), sim.Options{BootLatency: time.Minute}, nil)
	h.tick(0)
	h.tick(time.Minute)
	h.registerAll()
	h.fresh()
	h.tick(30 * time.Second)
	h.wantIntents("a100-k1:ready")
	nodes, err := h.store.Nodes(h.ctx)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("Nodes = %d, %v", len(nodes), err)
	}
	task := modelstest.Task("vision", "train").GPUs(2).Create(t, h.store, h.now)
	modelstest.Run(t, h.store, task, nodes[0], h.now)
	if err := h.prov.Delete(h.ctx, h.machines()[0].ID); err != nil { // the cloud takes it back
		t.Fatal(err)
	}
	h.fresh()
	h.tick(30 * time.Second)
	got, err := h.store.TaskByID(h.ctx, task.ID)
	if err != nil || got.State != models.TaskQueued || got.Attempt != 2 {
		t.Fatalf("task after its machine went = %s, attempt %d, %v; want queued for attempt 2", got.State, got.Attempt, err)
	}
	attempts, err := h.store.TaskAttempts(h.ctx, task.ID)
	if err != nil || len(attempts) != 2 || attempts[0].Ending != models.EndLost {
		t.Errorf("TaskAttempts = %+v, %v; want the first attempt lost", attempts, err)
	}
	if open, _ := h.store.OpenAllocations(h.ctx); len(open) != 0 {
		t.Errorf("open allocations = %+v, want the gone machine's cards given back", open)
	}
}
