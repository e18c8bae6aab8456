package web_test

import (
	"net/http"
	"testing"

	"kashi/api"
)

func TestAgentPollConfirmsRunningTasks(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		nodes := taskFleet(s)
		mine, other := s.create(task("mine").ready(), t0), s.create(task("other").ready(), t0)
		s.place(mine, t0, "GPU-n1-1")
		s.place(other, t0, "GPU-n2-0")

		// n1 says both run: its own task becomes running, the other node's is untouched.
		path := api.PathAssignments + "?running=" + idStr(mine.ID) + "," + idStr(other.ID)
		if w := s.get(path, bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d %s, want 200", path, w.Code, w.Body)
		}
		for id, want := range map[int64]string{mine.ID: "running", other.ID: "starting"} {
			if got := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(id)))["state"]; got != want {
				t.Errorf("task %d is %v after the poll, want %s", id, got, want)
			}
		}
		for _, bad := range []string{"x", "1,,2", "-3"} {
			w := s.get(api.PathAssignments+"?running="+bad, bearer(nodes["n1"].Token)...)
			wantAPIError(t, "GET assignments?running="+bad, w, http.StatusBadRequest, api.QueryRunning)
		}
	})
}

func TestAgentOutputUnitsOnTaskJSON(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		nodes := taskFleet(s)
		tk := s.create(task("out").ready(), t0)
		s.place(tk, t0, "GPU-n1-1")
		body := `{"state":"running","ts":"2026-03-02T09:00:00Z","output_units":40,"output_unit":"images","checkpoint_at":"2026-03-02T08:59:00Z"}`
		if w := s.post(api.PathTaskStatus+idStr(tk.ID)+"/status", body, bearer(nodes["n1"].Token)...); w.Code != http.StatusNoContent {
			t.Fatalf("POST status = %d %s", w.Code, w.Body)
		}
		got := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(tk.ID)))
		if got["output_units"] != 40.0 || got["output_unit"] != "images" || got["last_checkpoint_at"] == nil {
			t.Errorf("task JSON output = %v %v %v, want 40 images and a checkpoint", got["output_units"], got["output_unit"], got["last_checkpoint_at"])
		}
		long := `{"state":"running","output_unit":"` + "0123456789012345678901234567890123456789012345678901" + `"}`
		wantAPIError(t, "POST a long output unit", s.post(api.PathTaskStatus+idStr(tk.ID)+"/status", long, bearer(nodes["n1"].Token)...),
			http.StatusUnprocessableEntity, "output_unit")
	})
}
