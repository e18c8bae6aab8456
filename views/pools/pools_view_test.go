package pools

import (
	"testing"

	"kashi/phrase"
	"kashi/scaler"
)

// TestScaleReasonsHaveWords: every reason the scaling loop gives has words on the pages.
func TestScaleReasonsHaveWords(t *testing.T) {
	for _, r := range []scaler.Reason{
		scaler.ReasonDemandWaiting, scaler.ReasonMemoryHigh, scaler.ReasonBelowMin, scaler.ReasonReservedMin,
		scaler.ReasonNodeUnneeded, scaler.ReasonAboveMax, scaler.ReasonDrainedEmpty, scaler.ReasonDrainTooLong,
		scaler.ReasonBootTimeout, scaler.ReasonMachineFailed, scaler.ReasonIdleTask, scaler.ReasonActiveAgain,
		scaler.ReasonNoAnswer, scaler.ReasonUnknownMachine, scaler.ReasonDuplicateMachine, scaler.ReasonLeftoverMachine,
		scaler.ReasonAtMaxSize, scaler.ReasonAtMinSize, scaler.ReasonInCooldown, scaler.ReasonInFlightCap,
		scaler.ReasonNoDemand, scaler.ReasonDemandPending, scaler.ReasonMemoryNotLow, scaler.ReasonNoneUnneeded,
		scaler.ReasonNoRemovable, scaler.ReasonCoveredByBooting, scaler.ReasonBootBackoff, scaler.ReasonBootFailing,
	} {
		if scaleReasonText(phrase.Locale{}, string(r)) == string(r) {
			t.Errorf("reason %q has no words on the pools page", r)
		}
	}
}
