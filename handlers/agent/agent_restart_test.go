package agent_test

import (
	"context"
	"net/http"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

// TestAgentRestartKeepsRunningTask: an agent restarted on its node (registering again with
// its node token) finds its running task still assigned on the same card, the task still
// running, and the card is not given to another task.
func TestAgentRestartKeepsRunningTask(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		mine := s.Create(webtest.Task("mine").Ready(), webtest.T0)
		s.Place(mine, webtest.T0, "GPU-n1-1")
		if w := s.Get(api.PathAssignments+"?running="+webtest.IDStr(mine.ID), webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("poll = %d %s", w.Code, w.Body)
		}
		again := s.Reregister(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4), nodes["n1"].Token)
		if again.ID != nodes["n1"].ID {
			t.Errorf("registering again gave node %d, want the same node %d", again.ID, nodes["n1"].ID)
		}
		as := webtest.Decode[api.AssignmentsResponse](t, s.Get(api.PathAssignments+"?running="+webtest.IDStr(mine.ID), webtest.Bearer(again.Token)...))
		if len(as.Tasks) != 1 || as.Tasks[0].TaskID != mine.ID || as.Tasks[0].Stop || len(as.Tasks[0].GPUUUIDs) != 1 || as.Tasks[0].GPUUUIDs[0] != "GPU-n1-1" {
			t.Errorf("assignments after the restart = %+v, want task %d on GPU-n1-1 still", as.Tasks, mine.ID)
		}
		if got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(mine.ID)))["state"]; got != "running" {
			t.Errorf("task after the restart is %v, want running", got)
		}
		other := s.Create(webtest.Task("other").Ready(), webtest.T0)
		if err := s.Store.PlaceTask(context.Background(), other.ID, s.GPUIDs("GPU-n1-1"), false, "test", webtest.T0); err == nil {
			t.Errorf("PlaceTask(another task on the running task's card) = nil, want a refusal")
		}
	})
}
