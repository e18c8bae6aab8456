package simgpu

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/api"
)

// statesOf is the states a task reported, in order.
func statesOf(statuses []status, id int64) (states []string) {
	for _, s := range statuses {
		if s.TaskID == id {
			states = append(states, s.State)
		}
	}
	return states
}

// TestAgentRestartsExitedServiceReplica: a simulated model server that exits by itself is
// started again after the backoff, which doubles after a short run, and its next scrape
// says it restarted; a batch task that fails is reported and never started again; a replica
// stopped while it waits is reported exited.
func TestAgentRestartsExitedServiceReplica(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 2, clock.Now, 1)
	gpus := uuids(b)
	replica := api.Assignment{TaskID: 5, GPUUUIDs: gpus[:1], Command: ServiceCommand(time.Minute, 5, 150*time.Millisecond),
		MetricsPort: freePort(t), MetricsPath: "/metrics", Restart: true}
	batch := api.Assignment{TaskID: 6, GPUUUIDs: gpus[1:], Command: Command(Finetune, time.Minute, 1)}
	cp := &controlPlane{assignments: []api.Assignment{replica, batch}}
	waitFor, stop := runSimAgent(t, cp, b, clock)
	running := func(id int64, n int) func() bool {
		return func() bool {
			got := 0
			for _, s := range cp.statuses {
				if s.TaskID == id && s.State == api.TaskRunning {
					got++
				}
			}
			return got == n
		}
	}

	backoff := func(wait string) func() bool {
		return func() bool {
			return slices.ContainsFunc(cp.logs, func(l string) bool {
				return strings.Contains(l, "starting it again later") && strings.Contains(l, "task=5 ") && strings.HasSuffix(l, " in="+wait+"\n")
			})
		}
	}

	waitFor("both running", func() bool { return running(5, 1)() && running(6, 1)() })
	clock.Add(time.Minute) // both exit
	waitFor("the batch task's exit", func() bool { return len(statesOf(cp.statuses, 6)) == 2 })
	waitFor("the replica's first backoff", backoff("10s"))
	clock.Add(10 * time.Second)
	waitFor("the replica started again", running(5, 2))
	waitFor("a scrape saying it restarted", func() bool {
		for _, r := range cp.serving {
			if r.TaskID == 5 && r.Restarted && r.Error == "" {
				return true
			}
		}
		return false
	})

	clock.Add(time.Minute) // a short run: the next wait is 20 s
	waitFor("the replica's second backoff", backoff("20s"))
	clock.Add(10 * time.Second)
	var polls int
	cp.with(func() { polls = cp.polls })
	waitFor("ten more polls", func() bool { return cp.polls >= polls+10 })
	cp.with(func() {
		if running(5, 3)() {
			t.Errorf("replica started again 10 s after its second exit, want 20 s")
		}
	})
	clock.Add(10 * time.Second)
	waitFor("the second restart", running(5, 3))

	clock.Add(time.Minute)
	cp.with(func() { cp.assignments = []api.Assignment{batch} }) // stopped while it waits
	waitFor("the replica's exit", func() bool { s := statesOf(cp.statuses, 5); return s[len(s)-1] == api.TaskExited })
	stop()
	if got := statesOf(cp.statuses, 6); len(got) != 2 || got[1] != api.TaskExited {
		t.Errorf("batch task states = %q, want running, exited and no start again", got)
	}
	if got := statesOf(cp.statuses, 5); len(got) != 4 {
		t.Errorf("replica states = %q, want running three times, then exited", got)
	}
}
