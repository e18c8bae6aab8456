package scaler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestCountAction checks that each applied action lands in its counter: notices and reclaims
// apart, withdrawn notices nowhere, the rest as scaling events by action and reason.
func TestCountAction(t *testing.T) {
	read := func() [4]float64 {
		return [4]float64{testutil.ToFloat64(reclaimNotices), testutil.ToFloat64(reclaims),
			testutil.ToFloat64(scalingEvents.WithLabelValues("scale-up", "demand-waiting")),
			testutil.ToFloat64(scalingEvents.WithLabelValues("remove", "node-unneeded"))}
	}
	before := read()
	for _, a := range []Action{
		{Kind: ActionIdleNotice, Reason: ReasonIdleTask},
		{Kind: ActionClearNotice, Reason: ReasonActiveAgain},
		{Kind: ActionReclaim, Reason: ReasonNoAnswer},
		{Kind: ActionReclaim, Reason: ReasonNoAnswer},
		{Kind: ActionScaleUp, Reason: ReasonDemandWaiting},
		{Kind: ActionRemove, Reason: ReasonNodeUnneeded},
		{Kind: ActionRemove, Reason: ReasonNodeUnneeded},
		{Kind: ActionRemove, Reason: ReasonNodeUnneeded},
	} {
		countAction(a)
	}
	after := read()
	var got [4]float64
	for i := range got {
		got[i] = after[i] - before[i]
	}
	if diff := cmp.Diff([4]float64{1, 2, 1, 3}, got); diff != "" {
		t.Errorf("counter increments (-want +got):\n%s", diff)
	}
	if n := testutil.CollectAndCount(scalingEvents); n < 2 {
		t.Errorf("scaling event series = %d, want ≥ 2", n)
	}
}
