package agent_test

import (
	"net/http"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

func TestAgentPollConfirmsRunningTasks(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		mine, other := s.Create(webtest.Task("mine").Ready(), webtest.T0), s.Create(webtest.Task("other").Ready(), webtest.T0)
		s.Place(mine, webtest.T0, "GPU-n1-1")
		s.Place(other, webtest.T0, "GPU-n2-0")

		// n1 says both run: its own task becomes running, the other node's is untouched.
		path := api.PathAssignments + "?running=" + webtest.IDStr(mine.ID) + "," + webtest.IDStr(other.ID)
		if w := s.Get(path, webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d %s, want 200", path, w.Code, w.Body)
		}
		for id, want := range map[int64]string{mine.ID: "running", other.ID: "starting"} {
			if got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))["state"]; got != want {
				t.Errorf("task %d is %v after the poll, want %s", id, got, want)
			}
		}
		for _, bad := range []string{"x", "1,,2", "-3"} {
			w := s.Get(api.PathAssignments+"?running="+bad, webtest.Bearer(nodes["n1"].Token)...)
			webtest.WantAPIError(t, "GET assignments?running="+bad, w, http.StatusBadRequest, api.QueryRunning)
		}
	})
}

func TestAgentOutputUnitsOnTaskJSON(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		tk := s.Create(webtest.Task("out").Ready(), webtest.T0)
		s.Place(tk, webtest.T0, "GPU-n1-1")
		body := `{"state":"running","ts":"2026-03-02T09:00:00Z","output_units":40,"output_unit":"images","checkpoint_at":"2026-03-02T08:59:00Z"}`
		if w := s.Post(api.PathTaskStatus+webtest.IDStr(tk.ID)+"/status", body, webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusNoContent {
			t.Fatalf("POST status = %d %s", w.Code, w.Body)
		}
		got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(tk.ID)))
		if got["output_units"] != 40.0 || got["output_unit"] != "images" || got["last_checkpoint_at"] == nil {
			t.Errorf("task JSON output = %v %v %v, want 40 images and a checkpoint", got["output_units"], got["output_unit"], got["last_checkpoint_at"])
		}
		long := `{"state":"running","output_unit":"` + "0123456789012345678901234567890123456789012345678901" + `"}`
		webtest.WantAPIError(t, "POST a long output unit", s.Post(api.PathTaskStatus+webtest.IDStr(tk.ID)+"/status", long, webtest.Bearer(nodes["n1"].Token)...),
			http.StatusUnprocessableEntity, "output_unit")
	})
}
