package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTryMatchesQueueView(t *testing.T) {
	// One 8-card node with 6 cards held for an hour (expected) or three (latest); task 1
	// waits for 8 cards. The trial asks 4 cards for two hours: it waits behind task 1.
	snap := snapshot(node(1, "A100-80G", 8)).
		run(running(9, gpus(1, 0, 5)...).ends(time.Hour, 3*time.Hour)).
		queue(pending(1).gpus(8).ready().maxRun(4 * time.Hour)).s
	pol := Policy{Backfill: true}
	trial := pending(0).gpus(4).ready().est(2 * time.Hour).maxRun(5 * time.Hour).p
	got := Try(snap, trial, t0, pol)

	// The same task submitted: the queue view of the snapshot with it stored (as the
	// latest-submitted task, with the highest id).
	stored := trial
	stored.ID, stored.SubmittedAt = 50, t0
	withIt := snap
	withIt.Pending = append(append([]Pending(nil), snap.Pending...), stored)
	var want QueueEntry
	for _, e := range NewQueueView(withIt, Decide(withIt, t0, pol), t0, pol).Entries {
		if e.TaskID == 50 {
			want = e
		}
	}
	want.TaskID = TrialID
	if diff := cmp.Diff(Trial{QueueEntry: want}, got); diff != "" {
		t.Errorf("Try(...) mismatch with the queue view (-want +got):\n%s", diff)
	}
	if got.ETAP50.IsZero() || got.Reason != ReasonNoFreeGPUs {
		t.Errorf("Try(...) = %+v, want a capacity wait with an ETA", got)
	}
	if len(snap.Pending) != 1 {
		t.Errorf("Try changed the snapshot: %d pending, want 1", len(snap.Pending))
	}
}

func TestTryQuota(t *testing.T) {
	tests := map[string]struct {
		quota QuotaState
		want  Trial
	}{
		"within quota starts": {
			quota: QuotaState{MaxGPUs: 8},
			want:  Trial{QueueEntry: QueueEntry{Starting: true, Waiting: Waiting{Lane: "long", Reason: ReasonStarting, Spec: "A100-80G", PlaceSpec: "A100-80G", PlaceWhy: WhyOnly}}},
		},
		"over the limit with overflow starts as overflow": {
			quota: QuotaState{MaxGPUs: 1, Overflow: true},
			want:  Trial{QueueEntry: QueueEntry{Starting: true, Waiting: Waiting{Lane: "long", Reason: ReasonStarting, Spec: "A100-80G", PlaceSpec: "A100-80G", PlaceWhy: WhyOnly}}, Overflow: true},
		},
		"over the limit without overflow waits on quota": {
			quota: QuotaState{MaxGPUs: 1},
			want: Trial{QueueEntry: QueueEntry{Waiting: Waiting{Lane: "long", Position: 1, Reason: ReasonQuota, Detail: DetailConcurrentLimit,
				Quota: &QuotaWait{Project: "p", Limit: 1, Needs: 1}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Try(snapshot(node(1, "A100-80G", 8)).quota("p", tc.quota).s, pending(0).gpus(2).ready().p, t0, Policy{})
			tc.want.TaskID = TrialID
			if tc.want.Starting {
				tc.want.ETAP50, tc.want.ETAP90 = t0, t0
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Try(...) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
