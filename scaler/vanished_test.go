package scaler

import (
	"testing"
	"time"

	"kashi/fleet/sim"
	"kashi/models"
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
