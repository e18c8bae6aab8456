package web_test

import (
	"net/http"
	"testing"

	"kashi/api"
)

func TestTaskLogTail(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		nodes := taskFleet(s)
		tk := s.create(task("logged").ready(), t0)
		s.place(tk, t0, "GPU-n1-1")
		req := api.SamplesRequest{Samples: []api.Sample{sample("GPU-n1-1", t0, 50, 1000)},
			Logs: []api.TaskLog{{TaskID: tk.ID, Offset: 0, Text: "loss 0.5\n"}}}
		if w := s.post(api.PathSamples, mustJSON(t, req), bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("POST samples with logs = %d %s", w.Code, w.Body)
		}
		w := s.get("/api/v1/tasks/" + idStr(tk.ID) + "/log")
		if w.Code != http.StatusOK || w.Body.String() != "loss 0.5\n" || w.Header().Get("X-Log-End-Offset") != "9" {
			t.Errorf("GET log = %d %q (end %s), want the shipped line", w.Code, w.Body, w.Header().Get("X-Log-End-Offset"))
		}
		// A task's last lines come with its exit, without samples: they are kept too (a batch of
		// log lines alone used to be refused as "samples: is empty", losing them).
		last := api.SamplesRequest{Logs: []api.TaskLog{{TaskID: tk.ID, Offset: 9, Text: "done\n"}}}
		if w := s.post(api.PathSamples, mustJSON(t, last), bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("POST logs only = %d %s", w.Code, w.Body)
		}
		if w := s.get("/api/v1/tasks/" + idStr(tk.ID) + "/log"); w.Body.String() != "loss 0.5\ndone\n" {
			t.Errorf("GET log after the last lines = %q", w.Body)
		}
		empty := api.SamplesRequest{}
		wantAPIError(t, "POST nothing", s.post(api.PathSamples, mustJSON(t, empty), bearer(nodes["n1"].Token)...),
			http.StatusUnprocessableEntity, "samples")
		bad := api.SamplesRequest{Logs: []api.TaskLog{{TaskID: tk.ID, Offset: -1, Text: "x"}}}
		wantAPIError(t, "POST a negative log offset", s.post(api.PathSamples, mustJSON(t, bad), bearer(nodes["n1"].Token)...),
			http.StatusUnprocessableEntity, "logs[0].offset")
		if w := s.get("/api/v1/tasks/999999/log"); w.Code != http.StatusNotFound {
			t.Errorf("GET log of an unknown task = %d, want 404", w.Code)
		}
	})
}
