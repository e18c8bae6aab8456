package tasks_test

import (
	"net/http"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

func TestTaskLogTail(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		tk := s.Create(webtest.Task("logged").Ready(), webtest.T0)
		s.Place(tk, webtest.T0, "GPU-n1-1")
		req := api.SamplesRequest{Samples: []api.Sample{webtest.Sample("GPU-n1-1", webtest.T0, 50, 1000)},
			Logs: []api.TaskLog{{TaskID: tk.ID, Offset: 0, Text: "loss 0.5\n"}}}
		if w := s.Post(api.PathSamples, webtest.MustJSON(t, req), webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("POST samples with logs = %d %s", w.Code, w.Body)
		}
		w := s.Get("/api/v1/tasks/" + webtest.IDStr(tk.ID) + "/log")
		if w.Code != http.StatusOK || w.Body.String() != "loss 0.5\n" || w.Header().Get("X-Log-End-Offset") != "9" {
			t.Errorf("GET log = %d %q (end %s), want the shipped line", w.Code, w.Body, w.Header().Get("X-Log-End-Offset"))
		}
		// A task's last lines come with its exit, without samples: they are kept too (a batch of
		// log lines alone used to be refused as "samples: is empty", losing them).
		last := api.SamplesRequest{Logs: []api.TaskLog{{TaskID: tk.ID, Offset: 9, Text: "done\n"}}}
		if w := s.Post(api.PathSamples, webtest.MustJSON(t, last), webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("POST logs only = %d %s", w.Code, w.Body)
		}
		if w := s.Get("/api/v1/tasks/" + webtest.IDStr(tk.ID) + "/log"); w.Body.String() != "loss 0.5\ndone\n" {
			t.Errorf("GET log after the last lines = %q", w.Body)
		}
		empty := api.SamplesRequest{}
		webtest.WantAPIError(t, "POST nothing", s.Post(api.PathSamples, webtest.MustJSON(t, empty), webtest.Bearer(nodes["n1"].Token)...),
			http.StatusUnprocessableEntity, "samples")
		bad := api.SamplesRequest{Logs: []api.TaskLog{{TaskID: tk.ID, Offset: -1, Text: "x"}}}
		webtest.WantAPIError(t, "POST a negative log offset", s.Post(api.PathSamples, webtest.MustJSON(t, bad), webtest.Bearer(nodes["n1"].Token)...),
			http.StatusUnprocessableEntity, "logs[0].offset")
		if w := s.Get("/api/v1/tasks/999999/log"); w.Code != http.StatusNotFound {
			t.Errorf("GET log of an unknown task = %d, want 404", w.Code)
		}
	})
}
