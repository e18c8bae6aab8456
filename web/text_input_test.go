package web_test

import (
	"net/http"
	"strings"
	"testing"

	"kashi/web/webtest"
)

// TestOddText sends text that is not valid UTF-8, holds NUL, or holds escapes the decoder
// would quietly replace, in bodies, headers and filters, on every database: each is answered
// with a 4xx naming the field, or matches nothing, and never with a 500 (Postgres refuses
// NUL and bad UTF-8 where SQLite stores them).
func TestOddText(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		placed := s.Create(webtest.Task("placed").Ready(), webtest.T0)
		s.Place(placed, webtest.T0, "GPU-n1-0")
		statusPath := "/api/v1/agent/tasks/" + webtest.IDStr(placed.ID) + "/status"
		tests := map[string]struct {
			method, path, body string
			hdr                []string
			status             int
			field              string
			empty              bool // a 200 with nothing in it
		}{
			"gpus pool NUL":         {method: "GET", path: "/api/v1/gpus?pool=%00", status: 200, empty: true},
			"gpus pool bad UTF-8":   {method: "GET", path: "/api/v1/gpus?pool=%ff", status: 200, empty: true},
			"gpus project NUL":      {method: "GET", path: "/api/v1/gpus?project=vision%00", status: 200, empty: true},
			"tasks project NUL":     {method: "GET", path: "/api/v1/tasks?project=%00", status: 200, empty: true},
			"tasks state bad UTF-8": {method: "GET", path: "/api/v1/tasks?state=%ff", status: 400, field: "state"},
			"board spec bad UTF-8":  {method: "GET", path: "/?spec=%ff", status: 200},
			"board pool NUL":        {method: "GET", path: "/?pool=a100%00", status: 200},
			"task name NUL":         {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"name": `"a\u0000b"`}), status: 400, field: "name"},
			"task project NUL":      {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"project": `"vision\u0000"`}), status: 400, field: "project"},
			"task workdir NUL":      {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"workdir": `"/data\u0000"`}), status: 400, field: "workdir"},
			"task env NUL":          {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"env": `{"A":"x\u0000"}`}), status: 400, field: "env.A"},
			"task argument NUL":     {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"command": `["sh","-c","\u0000"]`}), status: 400, field: "command[2]"},
			"task check path NUL":   {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"data_check": `{"path":"/d\u0000"}`}), status: 400, field: "data_check.path"},
			"task name bad byte":    {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(map[string]string{"name": "\"\x80\""}), status: 400, field: "name"},
			"key NUL":               {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(nil), hdr: []string{"Idempotency-Key", "k\x00"}, status: 422, field: "Idempotency-Key"},
			"key bad UTF-8":         {method: "POST", path: "/api/v1/tasks", body: webtest.TaskBody(nil), hdr: []string{"Idempotency-Key", "k\xff"}, status: 422, field: "Idempotency-Key"},
			"register hostname NUL": {method: "POST", path: "/api/v1/agent/register", hdr: webtest.Bearer(webtest.JoinToken), status: 400, field: "hostname",
				body: `{"hostname":"x\u0000","pool":"a100","gpus":[{"uuid":"GPU-x","index":0,"name":"NVIDIA A100-SXM4-80GB","memory_total_mib":81920}]}`},
			"register machine NUL": {method: "POST", path: "/api/v1/agent/register", hdr: webtest.Bearer(webtest.JoinToken), status: 400, field: "machine_id",
				body: `{"hostname":"x","pool":"a100","machine_id":"\u0000","gpus":[{"uuid":"GPU-x","index":0,"name":"NVIDIA A100-SXM4-80GB","memory_total_mib":81920}]}`},
			"register uuid bad UTF-8": {method: "POST", path: "/api/v1/agent/register", hdr: webtest.Bearer(webtest.JoinToken), status: 400, field: "gpus[0].uuid",
				body: "{\"hostname\":\"x\",\"pool\":\"a100\",\"gpus\":[{\"uuid\":\"GPU-\xc0\",\"index\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"memory_total_mib\":81920}]}"},
			"sample uuid surrogate": {method: "POST", path: "/api/v1/agent/samples", hdr: webtest.Bearer(nodes["n1"].Token), status: 400, field: "samples[1].uuid",
				body: `{"samples":[{"uuid":"GPU-n1-0","ts":"2026-03-02T08:59:00Z"},{"uuid":"GPU-\udc00","ts":"2026-03-02T08:59:00Z"}]}`},
			"status message NUL": {method: "POST", path: statusPath, hdr: webtest.Bearer(nodes["n1"].Token), status: 400, field: "message",
				body: `{"state":"failed-to-start","message":"exec: \u0000"}`},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				before := s.TaskCount()
				w := s.Do(webtest.Req{Method: tc.method, Path: tc.path, Body: tc.body, Hdr: webtest.Pairs(tc.hdr)})
				if tc.status == http.StatusOK {
					if w.Code != http.StatusOK {
						t.Fatalf("%s %s = %d %s, want 200", tc.method, tc.path, w.Code, w.Body)
					}
					if body := strings.TrimSpace(w.Body.String()); tc.empty && body != "[]" {
						t.Errorf("%s %s = %s, want []", tc.method, tc.path, body)
					}
					return
				}
				webtest.WantAPIError(t, tc.method+" "+tc.path, w, tc.status, tc.field)
				if n := s.TaskCount(); n != before {
					t.Errorf("%s %s stored a task", tc.method, tc.path)
				}
			})
		}
		if got := decodeTaskState(t, s, placed.ID); got != "starting" {
			t.Errorf("task %d is %s after refused reports, want starting", placed.ID, got)
		}
	})
}

// TestTextKept: text that is valid stays as sent, escapes included.
func TestTextKept(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	tests := map[string]struct {
		name string // raw JSON
		want string
	}{
		"replacement character": {name: "\"a\uFFFDb\"", want: "a\uFFFDb"},
		"escaped replacement":   {name: `"a\ufffdb"`, want: "a\uFFFDb"},
		"surrogate pair":        {name: `"\ud83d\ude80 launch"`, want: "🚀 launch"},
		"chinese":               {name: `"训练任务"`, want: "训练任务"},
		"escaped backslash u":   {name: `"C:\\ud800"`, want: `C:\ud800`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"name": tc.name}))
			if w.Code != http.StatusCreated {
				t.Fatalf("POST /api/v1/tasks name %s = %d %s, want 201", tc.name, w.Code, w.Body)
			}
			if got := webtest.Decode[map[string]any](t, w)["name"]; got != tc.want {
				t.Errorf("POST /api/v1/tasks name %s = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

func decodeTaskState(t *testing.T, s *webtest.Server, id int64) any {
	t.Helper()
	return webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))["state"]
}
