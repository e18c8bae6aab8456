package web_test

import (
	"context"
	"net/http"
	"testing"

	"kashi/api"
)

// TestAgentRestartKeepsRunningTask: an agent restarted on its node (registering again with
// its node token) finds its running task still assigned on the same card, the task still
// running, and the card is not given to another task.
func TestAgentRestartKeepsRunningTask(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		nodes := taskFleet(s)
		mine := s.create(task("mine").ready(), t0)
		s.place(mine, t0, "GPU-n1-1")
		if w := s.get(api.PathAssignments+"?running="+idStr(mine.ID), bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("poll = %d %s", w.Code, w.Body)
		}
		again := s.reregister(node("n1").inPool("a100").cards(a100Name, a100MiB, 4), nodes["n1"].Token)
		if again.ID != nodes["n1"].ID {
			t.Errorf("registering again gave node %d, want the same node %d", again.ID, nodes["n1"].ID)
		}
		as := decode[api.AssignmentsResponse](t, s.get(api.PathAssignments+"?running="+idStr(mine.ID), bearer(again.Token)...))
		if len(as.Tasks) != 1 || as.Tasks[0].TaskID != mine.ID || as.Tasks[0].Stop || len(as.Tasks[0].GPUUUIDs) != 1 || as.Tasks[0].GPUUUIDs[0] != "GPU-n1-1" {
			t.Errorf("assignments after the restart = %+v, want task %d on GPU-n1-1 still", as.Tasks, mine.ID)
		}
		if got := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(mine.ID)))["state"]; got != "running" {
			t.Errorf("task after the restart is %v, want running", got)
		}
		other := s.create(task("other").ready(), t0)
		if err := s.store.PlaceTask(context.Background(), other.ID, s.gpuIDs("GPU-n1-1"), false, "test", t0); err == nil {
			t.Errorf("PlaceTask(another task on the running task's card) = nil, want a refusal")
		}
	})
}
