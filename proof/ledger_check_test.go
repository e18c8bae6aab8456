package proof

import (
	"strings"
	"testing"
	"time"
)

// The proofs' checks find each kind of broken ledger they look for, and pass a sound one.
func TestChecksFindBrokenLedgers(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 1, 0, 0, 0, time.UTC)
	at := func(m int) *time.Time { x := t0.Add(time.Duration(m) * time.Minute); return &x }
	sound := func() *ledger {
		l := &ledger{tasks: map[int64]*task{}, nodes: map[int64]node{1: {ID: 1, Hostname: "n1", State: "ready", lastSeen: *at(60)}},
			lostExits: map[[2]int64]time.Time{}}
		l.tasks[1] = &task{ID: 1, State: "succeeded", GPUs: 1, Attempt: 1, Start: at(0), End: at(10), Starts: 1, Key: "proof-000001"}
		l.tasks[2] = &task{ID: 2, State: "running", GPUs: 1, Attempt: 1, Start: at(10), Starts: 1, Key: "proof-000002"}
		// Task 3 lost its node in attempt 1 and was placed again for attempt 2.
		l.tasks[3] = &task{ID: 3, State: "running", GPUs: 1, Attempt: 2, Start: at(30), Starts: 2, Key: "proof-000003",
			Reruns: map[int]rerun{1: {Start: at(5), End: *at(20), Ending: "lost"}}}
		// Task 4 ran on two nodes; node 2 was lost at 40 and its card closed then, node 1's
		// when it exited at 45, which ended attempt 1; attempt 2 runs on node 1 alone.
		l.nodes[2] = node{ID: 2, Hostname: "n2", State: "lost", lastSeen: *at(40)}
		l.lostExits[[2]int64{4, 2}] = *at(40)
		l.tasks[4] = &task{ID: 4, State: "running", GPUs: 2, Attempt: 2, Start: at(50), Starts: 2, Key: "proof-000004",
			Reruns: map[int]rerun{1: {Start: at(35), End: *at(45), Ending: "lost"}}}
		l.allocs = []alloc{{ID: 1, TaskID: 1, GPUID: 7, NodeID: 1, Attempt: 1, Start: *at(0), End: at(10)}, {ID: 2, TaskID: 2, GPUID: 7, NodeID: 1, Attempt: 1, Start: *at(10)},
			{ID: 3, TaskID: 3, GPUID: 8, NodeID: 1, Attempt: 1, Start: *at(5), End: at(20)}, {ID: 4, TaskID: 3, GPUID: 8, NodeID: 1, Attempt: 2, Start: *at(30)},
			{ID: 5, TaskID: 4, GPUID: 9, NodeID: 1, Attempt: 1, Start: *at(35), End: at(45)}, {ID: 6, TaskID: 4, GPUID: 10, NodeID: 2, Attempt: 1, Start: *at(35), End: at(40)},
			{ID: 7, TaskID: 4, GPUID: 9, NodeID: 1, Attempt: 2, Start: *at(50)}, {ID: 8, TaskID: 4, GPUID: 11, NodeID: 1, Attempt: 2, Start: *at(50)}}
		for _, a := range l.allocs {
			l.tasks[a.TaskID].allocs = append(l.tasks[a.TaskID].allocs, a)
		}
		return l
	}
	sub := &submitter{sent: map[string]*submit{"proof-000001": {id: 1}, "proof-000002": {id: 2}, "proof-000003": {id: 3}, "proof-000004": {id: 4}},
		order: []string{"proof-000001", "proof-000002", "proof-000003", "proof-000004"}}
	check := func(l *ledger) violations {
		v := violations{}
		l.noGPUGivenTwice(v)
		l.noTaskRunTwice(v)
		if a, b := l.ledgerConserved(v); a != b {
			v.add("ledger not conserved", "%d != %d", a, b)
		}
		sub.everyTaskOnce(l, v)
		l.noDuplicateMachines(v)
		return v
	}
	if v := check(sound()); len(v) > 0 {
		t.Fatalf("a sound ledger broke:\n%s", v)
	}
	cases := map[string]func(l *ledger){
		"GPU given twice": func(l *ledger) { l.allocs[1].Start = *at(9) },
		"task run twice":  func(l *ledger) { l.tasks[1].Starts = 2 },
		"ledger not conserved": func(l *ledger) {
			l.tasks[1].allocs[0].End = at(12)
		},
		// A rerun task: placed a third time in two attempts, a card of its first attempt
		// not given back when it ended, or charged after its lost node was last seen.
		"task run twice/rerun": func(l *ledger) { l.tasks[3].Starts = 3 },
		"ledger not conserved/rerun": func(l *ledger) {
			l.tasks[3].allocs[0].End = at(25)
		},
		"ledger not conserved/rerun on a lost node": func(l *ledger) {
			l.tasks[4].allocs[1].End = at(42)
		},
		"ledger not conserved/rerun lost": func(l *ledger) {
			l.nodes[1] = node{ID: 1, Hostname: "n1", State: "lost", lastSeen: *at(15)}
		},
		"task lost":       func(l *ledger) { delete(l.tasks, 2) },
		"task duplicated": func(l *ledger) { l.tasks[3] = &task{ID: 3, State: "queued", Key: "proof-000001"} },
		"duplicate machine": func(l *ledger) {
			l.machines = []machine{{ID: 1, ProviderID: "m-1"}, {ID: 2, ProviderID: "m-1"}}
		},
	}
	for kind, breakIt := range cases {
		t.Run(kind, func(t *testing.T) {
			l := sound()
			breakIt(l)
			want, _, _ := strings.Cut(kind, "/")
			if v := check(l); len(v[want]) == 0 {
				t.Errorf("checks found %v, want %s", v, want)
			}
		})
	}
}
