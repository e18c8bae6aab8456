package scaler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	kfleet "kashi/fleet"
	"kashi/models"
)

// decideReconcile is pure: each case lists what the provider shows and what the store holds,
// and the steps that bring them into line.
func TestDecideReconcile(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	m := func(id, key string) kfleet.Machine {
		return kfleet.Machine{ID: id, Pool: "a100", IdempotencyKey: key, State: kfleet.StateRunning,
			Tags: kfleet.Tags("kashi", "a100", key), CreatedAt: now.Add(-time.Minute)}
	}
	intent := func(key, id, state string, age time.Duration) models.Machine {
		return models.Machine{IdempotencyKey: key, ProviderID: id, State: state, CreatedAt: now.Add(-age)}
	}
	type step struct {
		Kind    reconcileKind
		Key, ID string
		Node    int64
	}
	tests := map[string]struct {
		listed  []kfleet.Machine
		intents []models.Machine
		nodeOf  map[string]int64
		gone    map[string]bool
		adopt   bool
		want    []step
	}{
		"a pending intent not listed is created again": {
			intents: []models.Machine{intent("k1", "", models.MachinePending, time.Minute)},
			want:    []step{{Kind: rCreateAgain, Key: "k1"}},
		},
		"past its boot timeout it is left to DecideScale": {
			intents: []models.Machine{intent("k1", "", models.MachinePending, time.Hour)},
			want:    []step{{Kind: rBooting, Key: "k1"}},
		},
		"a listed machine with a node makes its intent ready": {
			listed:  []kfleet.Machine{m("i-1", "k1")},
			intents: []models.Machine{intent("k1", "i-1", models.MachineCreating, time.Minute)},
			nodeOf:  map[string]int64{"i-1": 7},
			want:    []step{{Kind: rLink, Key: "k1", ID: "i-1", Node: 7}},
		},
		"a second machine under one key is dropped": {
			listed:  []kfleet.Machine{m("i-2", "k1"), m("i-1", "k1")},
			intents: []models.Machine{intent("k1", "i-1", models.MachineCreating, time.Minute)},
			want:    []step{{Kind: rDrop, ID: "i-2"}, {Kind: rLink, Key: "k1", ID: "i-1"}},
		},
		"a ready intent whose machine vanished is only reported": {
			intents: []models.Machine{intent("k1", "i-1", models.MachineReady, time.Hour)},
			want:    []step{{Kind: rVanished, Key: "k1"}},
		},
		"someone else's machine is not ours": {
			listed: []kfleet.Machine{func() kfleet.Machine { x := m("i-9", "k9"); x.Tags = kfleet.Tags("other", "a100", "k9"); return x }()},
		},
		"an unknown machine is a leftover, adopted, or an orphan": {
			listed: []kfleet.Machine{m("i-3", "gone"), m("i-4", "runs"), m("i-5", "stray")},
			gone:   map[string]bool{"gone": true},
			nodeOf: map[string]int64{"runs": 4},
			want:   []step{{Kind: rDrop, ID: "i-3"}, {Kind: rAdopt, ID: "i-4", Node: 4}, {Kind: rDrop, ID: "i-5"}},
		},
		"with adopt-unknown a stray machine is adopted": {
			listed: []kfleet.Machine{m("i-5", "stray")},
			adopt:  true,
			want:   []step{{Kind: rAdopt, ID: "i-5"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := reconcileInput{Cluster: "kashi", Listed: tc.listed, Intents: tc.intents, NodeOf: tc.nodeOf,
				Gone: tc.gone, BootTimeout: 15 * time.Minute, AdoptUnknown: tc.adopt, Now: now}
			var got []step
			for _, a := range decideReconcile(in) {
				s := step{Kind: a.Kind, Key: a.Intent.IdempotencyKey, ID: a.Machine.ID}
				if a.NodeID != nil {
					s.Node = *a.NodeID
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decideReconcile (-want +got):\n%s", diff)
			}
		})
	}
}
