package tasks_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// taskJSONFields are the fields of a task's JSON (DESIGN.md, API surface).
var taskJSONFields = []string{"id", "project", "name", "owner", "gpus", "spec", "queue", "priority", "est_gpu_hours",
	"max_runtime_s", "command", "env_names", "workdir", "data_ready", "data_check", "deferrable", "state", "reason",
	"submitted_at", "started_at", "ended_at", "exit_code", "output_units", "image", "output_unit", "last_checkpoint_at",
	"template_id", "template_version", "kind", "data_checked_at", "attempt", "max_attempts", "rerun_on_failure",
	"min_inter_node_gbps", "min_storage_mbps", "allow_no_interconnect"}

func TestTaskCreate(t *testing.T) {
	submitted := webtest.T0.Format(time.RFC3339)
	tests := map[string]struct {
		body string
		want map[string]any
	}{
		"every field": {
			body: `{"project":"vision","name":"resnet50 sweep","owner":"alice","gpus":4,"spec":"A100-80G","queue":"short",
				"priority":"high","est_gpu_hours":6.5,"max_runtime_s":5400,"command":["torchrun","--nproc","4","train.py"],
				"env":{"NCCL_DEBUG":"INFO","SEED":"7"},"workdir":"/data/runs/r1","data_ready":false,
				"data_check":{"path":"/data/imagenet/_READY"},"deferrable":true,"image":"nvcr.io/nvidia/pytorch:24.05-py3",
				"max_attempts":3,"rerun_on_failure":true,"min_inter_node_gbps":800,"min_storage_mbps":2000,"allow_no_interconnect":true}`,
			want: map[string]any{"id": 1.0, "project": "vision", "name": "resnet50 sweep", "owner": "alice", "gpus": 4.0,
				"spec": "A100-80G", "queue": "short", "priority": "high", "est_gpu_hours": 6.5, "max_runtime_s": 5400.0,
				"command": []any{"torchrun", "--nproc", "4", "train.py"}, "env_names": []any{"NCCL_DEBUG", "SEED"},
				"workdir": "/data/runs/r1", "data_ready": false, "data_check": map[string]any{"path": "/data/imagenet/_READY"},
				"deferrable": true, "state": "waiting-data", "reason": "waits for its data", "reason_codes": []any{map[string]any{"code": "data_not_ready"}}, "submitted_at": submitted,
				"started_at": nil, "ended_at": nil, "exit_code": nil, "output_units": 0.0, "image": "nvcr.io/nvidia/pytorch:24.05-py3", "output_unit": "",
				"last_checkpoint_at": nil, "template_id": nil, "template_version": 0.0, "kind": "batch", "data_checked_at": nil,
				"attempt": 1.0, "max_attempts": 3.0, "rerun_on_failure": true,
				"min_inter_node_gbps": 800.0, "min_storage_mbps": 2000.0, "allow_no_interconnect": true},
		},
		"defaults": {
			body: `{"project":"vision","name":"eval","owner":"bob","gpus":1,"command":["python","eval.py"],"data_ready":true}`,
			want: map[string]any{"id": 1.0, "project": "vision", "name": "eval", "owner": "bob", "gpus": 1.0,
				"spec": "", "queue": "long", "priority": "normal", "est_gpu_hours": 0.0, "max_runtime_s": 1209600.0,
				"command": []any{"python", "eval.py"}, "env_names": []any{}, "workdir": "", "data_ready": true,
				"data_check": nil, "deferrable": false, "state": "queued", "reason": "", "submitted_at": submitted,
				"started_at": nil, "ended_at": nil, "exit_code": nil, "output_units": 0.0, "image": "", "output_unit": "",
				"last_checkpoint_at": nil, "template_id": nil, "template_version": 0.0, "kind": "batch", "data_checked_at": nil,
				"attempt": 1.0, "max_attempts": 2.0, "rerun_on_failure": false,
				"min_inter_node_gbps": 0.0, "min_storage_mbps": 0.0, "allow_no_interconnect": false},
		},
		"url check, unicode name": {
			body: `{"project":"vision","name":"语音识别 微调","owner":"张三","gpus":2,"spec":"H800-80G","command":["sh","-c","echo 你好"],
				"data_check":{"url":"https://data.example.com/ready"}}`,
			want: map[string]any{"id": 1.0, "project": "vision", "name": "语音识别 微调", "owner": "张三", "gpus": 2.0,
				"spec": "H800-80G", "queue": "long", "priority": "normal", "est_gpu_hours": 0.0, "max_runtime_s": 1209600.0,
				"command": []any{"sh", "-c", "echo 你好"}, "env_names": []any{}, "workdir": "", "data_ready": false,
				"data_check": map[string]any{"url": "https://data.example.com/ready"}, "deferrable": false,
				"state": "waiting-data", "reason": "waits for its data", "reason_codes": []any{map[string]any{"code": "data_not_ready"}}, "submitted_at": submitted,
				"started_at": nil, "ended_at": nil, "exit_code": nil, "output_units": 0.0, "image": "", "output_unit": "",
				"last_checkpoint_at": nil, "template_id": nil, "template_version": 0.0, "kind": "batch", "data_checked_at": nil,
				"attempt": 1.0, "max_attempts": 2.0, "rerun_on_failure": false,
				"min_inter_node_gbps": 0.0, "min_storage_mbps": 0.0, "allow_no_interconnect": false},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := webtest.NewServer(t)
			webtest.TaskFleet(s)
			before := s.Sched.Triggers() // the fleet's registrations wake it too
			w := s.Post("/api/v1/tasks", tc.body)
			if w.Code != http.StatusCreated {
				t.Fatalf("POST /api/v1/tasks = %d %s, want 201", w.Code, w.Body)
			}
			got := webtest.Decode[map[string]any](t, w)
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			fields := taskJSONFields
			if _, ok := tc.want["reason_codes"]; ok { // a reason the server knows has its codes
				fields = append(slices.Clone(fields), "reason_codes")
			}
			if diff := cmp.Diff(webtest.Sorted(fields), webtest.Sorted(keys)); diff != "" {
				t.Errorf("POST /api/v1/tasks fields (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("POST /api/v1/tasks (-want +got):\n%s", diff)
			}
			if n := s.Sched.Triggers() - before; n != 1 {
				t.Errorf("POST /api/v1/tasks triggered the scheduler %d times, want 1", n)
			}
			// GET answers the same task, with its event log.
			show := s.Get("/api/v1/tasks/1")
			shown := webtest.Decode[map[string]any](t, show)
			if events, ok := shown["events"].([]any); !ok || len(events) != 1 {
				t.Errorf("GET /api/v1/tasks/1 events = %v, want the submit", shown["events"])
			}
			if attempts, ok := shown["attempts"].([]any); !ok || len(attempts) != 1 || attempts[0].(map[string]any)["current"] != true {
				t.Errorf("GET /api/v1/tasks/1 attempts = %v, want its first, current", shown["attempts"])
			}
			delete(shown, "events")
			delete(shown, "attempts")
			if diff := cmp.Diff(got, shown); show.Code != http.StatusOK || diff != "" {
				t.Errorf("GET /api/v1/tasks/1 = %d (-created +shown):\n%s", show.Code, diff)
			}
		})
	}
}

func TestTaskCreateIdempotent(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		webtest.TaskFleet(s)
		before := s.Sched.Triggers() // the fleet's registrations wake it too
		key := func(k string) []string { return []string{"Idempotency-Key", k} }
		steps := []struct {
			name   string
			body   string
			hdr    []string
			status int
			id     float64
		}{
			{"first", webtest.TaskBody(nil), key("sub-1"), http.StatusCreated, 1},
			{"same key again", webtest.TaskBody(nil), key("sub-1"), http.StatusOK, 1},
			{"other key", webtest.TaskBody(nil), key("sub-2"), http.StatusCreated, 2},
			{"no key", webtest.TaskBody(nil), nil, http.StatusCreated, 3},
			{"no key again", webtest.TaskBody(nil), nil, http.StatusCreated, 4},
		}
		for _, st := range steps {
			w := s.Post("/api/v1/tasks", st.body, st.hdr...)
			if w.Code != st.status {
				t.Fatalf("POST /api/v1/tasks %s = %d %s, want %d", st.name, w.Code, w.Body, st.status)
			}
			got := webtest.Decode[map[string]any](t, w)
			if got["id"] != st.id || got["gpus"] != 1.0 {
				t.Errorf("POST /api/v1/tasks %s = id %v gpus %v, want id %v gpus 1", st.name, got["id"], got["gpus"], st.id)
			}
		}
		if n := s.TaskCount(); n != 4 {
			t.Errorf("tasks stored = %d, want 4", n)
		}
		if n := s.Sched.Triggers() - before; n != 4 {
			t.Errorf("scheduler triggered %d times, want 4 (once per new task)", n)
		}
		w := s.Post("/api/v1/tasks", webtest.TaskBody(nil), key(strings.Repeat("k", 201))...)
		webtest.WantAPIError(t, "POST /api/v1/tasks with a long key", w, http.StatusUnprocessableEntity, "Idempotency-Key")
	})
}

func TestTaskCreateBadInput(t *testing.T) {
	tests := map[string]struct {
		raw    map[string]string
		body   string // instead of raw
		ctype  string
		status int
		field  string
	}{
		"gpus 0":                 {raw: map[string]string{"gpus": "0"}, status: 422, field: "gpus"},
		"gpus missing":           {raw: map[string]string{"gpus": ""}, status: 422, field: "gpus"},
		"gpus negative":          {raw: map[string]string{"gpus": "-2"}, status: 422, field: "gpus"},
		"gpus over every pool":   {raw: map[string]string{"gpus": "9"}, status: 422, field: "gpus"},
		"gpus over the spec":     {raw: map[string]string{"gpus": "3", "spec": `"H800-80G"`}, status: 422, field: "gpus"},
		"gpus as a string":       {raw: map[string]string{"gpus": `"2"`}, status: 400, field: "gpus"},
		"gpus beyond int":        {raw: map[string]string{"gpus": "1e30"}, status: 400, field: "gpus"},
		"gpus fractional":        {raw: map[string]string{"gpus": "1.5"}, status: 400, field: "gpus"},
		"unknown spec":           {raw: map[string]string{"spec": `"B200-192G"`}, status: 422, field: "spec"},
		"unknown project":        {raw: map[string]string{"project": `"audio"`}, status: 422, field: "project"},
		"no project":             {raw: map[string]string{"project": ""}, status: 422, field: "project"},
		"no name":                {raw: map[string]string{"name": `""`}, status: 422, field: "name"},
		"name of 10,000 bytes":   {raw: map[string]string{"name": `"` + strings.Repeat("n", 10000) + `"`}, status: 422, field: "name"},
		"name not UTF-8":         {raw: map[string]string{"name": "\"bad \xff\xfe name\""}, status: 400, field: "name"},
		"owner not UTF-8":        {raw: map[string]string{"owner": "\"\xc3\x28\""}, status: 400, field: "owner"},
		"argument not UTF-8":     {raw: map[string]string{"command": "[\"python\",\"\xed\xa0\x80.py\"]"}, status: 400, field: "command[1]"},
		"env value not UTF-8":    {raw: map[string]string{"env": "{\"A\":\"\x80\"}"}, status: 400, field: "env.A"},
		"lone surrogate escape":  {raw: map[string]string{"name": `"bad \ud800 name"`}, status: 400, field: "name"},
		"short over its limit":   {raw: map[string]string{"queue": `"short"`, "max_runtime_s": "7201"}, status: 422, field: "max_runtime_s"},
		"long over its limit":    {raw: map[string]string{"max_runtime_s": "1209601"}, status: 422, field: "max_runtime_s"},
		"negative runtime":       {raw: map[string]string{"max_runtime_s": "-1"}, status: 422, field: "max_runtime_s"},
		"runtime overflows":      {raw: map[string]string{"max_runtime_s": "9223372036854775807"}, status: 422, field: "max_runtime_s"},
		"command as a string":    {raw: map[string]string{"command": `"python train.py"`}, status: 400, field: "command"},
		"empty command":          {raw: map[string]string{"command": `[]`}, status: 422, field: "command"},
		"no command":             {raw: map[string]string{"command": ""}, status: 422, field: "command"},
		"null command":           {raw: map[string]string{"command": "null"}, status: 422, field: "command"},
		"empty program":          {raw: map[string]string{"command": `["","x"]`}, status: 422, field: "command[0]"},
		"command of numbers":     {raw: map[string]string{"command": `[1,2]`}, status: 400, field: "command"},
		"bad queue":              {raw: map[string]string{"queue": `"medium"`}, status: 422, field: "queue"},
		"bad priority":           {raw: map[string]string{"priority": `"asap"`}, status: 422, field: "priority"},
		"priority case":          {raw: map[string]string{"priority": `"High"`}, status: 422, field: "priority"},
		"env with a bad name":    {raw: map[string]string{"env": `{"1BAD":"x"}`}, status: 422, field: "env"},
		"env name with =":        {raw: map[string]string{"env": `{"A=B":"x"}`}, status: 422, field: "env"},
		"env value not a string": {raw: map[string]string{"env": `{"A":1}`}, status: 400, field: "env"},
		"env as a list":          {raw: map[string]string{"env": `["A=1"]`}, status: 400, field: "env"},
		"relative workdir":       {raw: map[string]string{"workdir": `"runs/r1"`}, status: 422, field: "workdir"},
		"check path and url":     {raw: map[string]string{"data_check": `{"path":"/d","url":"https://x.test/"}`}, status: 422, field: "data_check"},
		"check relative path":    {raw: map[string]string{"data_check": `{"path":"d/ready"}`}, status: 422, field: "data_check.path"},
		"check url not http":     {raw: map[string]string{"data_check": `{"url":"file:///etc/passwd"}`}, status: 422, field: "data_check.url"},
		"check unknown key":      {raw: map[string]string{"data_check": `{"cmd":"true"}`}, status: 400, field: "cmd"},
		"negative estimate":      {raw: map[string]string{"est_gpu_hours": "-1"}, status: 422, field: "est_gpu_hours"},
		"attempts over 10":       {raw: map[string]string{"max_attempts": "11"}, status: 422, field: "max_attempts"},
		"attempts negative":      {raw: map[string]string{"max_attempts": "-2"}, status: 422, field: "max_attempts"},
		"attempts as a string":   {raw: map[string]string{"max_attempts": `"3"`}, status: 400, field: "max_attempts"},
		"unknown field":          {raw: map[string]string{"nodes": "2"}, status: 400, field: "nodes"},
		"data_ready as a string": {raw: map[string]string{"data_ready": `"yes"`}, status: 400, field: "data_ready"},
		"malformed":              {body: `{"project":"vision",`, status: 400},
		"not an object":          {body: `["vision"]`, status: 400},
		"empty":                  {body: ` `, status: 400},
		"wrong content type":     {body: webtest.TaskBody(nil), ctype: "text/plain", status: 415},
		"body over 256 KiB":      {raw: map[string]string{"env": `{"A":"` + strings.Repeat("a", 300<<10) + `"}`}, status: 413},
		"command over 64 KiB":    {raw: map[string]string{"env": `{"A":"` + strings.Repeat("a", 65<<10) + `"}`}, status: 422, field: "command"},
	}
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			body := tc.body
			if body == "" {
				body = webtest.TaskBody(tc.raw)
			}
			hdr := map[string]string{"Content-Type": "application/json"}
			if tc.ctype != "" {
				hdr["Content-Type"] = tc.ctype
			}
			before, tasks := s.Sched.Triggers(), s.TaskCount()
			w := s.Do(webtest.Req{Method: http.MethodPost, Path: "/api/v1/tasks", Body: body, Hdr: hdr})
			webtest.WantAPIError(t, "POST /api/v1/tasks", w, tc.status, tc.field)
			if n := s.TaskCount(); n != tasks {
				t.Errorf("after a rejected task the store has %d tasks, want %d", n, tasks)
			}
			if n := s.Sched.Triggers(); n != before {
				t.Errorf("a rejected task triggered the scheduler")
			}
		})
	}
}

func TestTaskShow(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	created := s.Post("/api/v1/tasks", webtest.TaskBody(nil))
	if created.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/tasks = %d %s, want 201", created.Code, created.Body)
	}
	tests := map[string]struct {
		path   string
		status int
		field  string
	}{
		"found":        {path: "/api/v1/tasks/1", status: 200},
		"unknown":      {path: "/api/v1/tasks/999", status: 404},
		"not a number": {path: "/api/v1/tasks/abc", status: 400, field: "id"},
		"zero":         {path: "/api/v1/tasks/0", status: 400, field: "id"},
		"negative":     {path: "/api/v1/tasks/-1", status: 400, field: "id"},
		"overflow":     {path: "/api/v1/tasks/99999999999999999999", status: 400, field: "id"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Get(tc.path)
			if tc.status == http.StatusOK {
				shown := webtest.Decode[map[string]any](t, w)
				delete(shown, "events")
				delete(shown, "attempts")
				if diff := cmp.Diff(webtest.Decode[map[string]any](t, created), shown); w.Code != http.StatusOK || diff != "" {
					t.Errorf("GET %s = %d (-created +shown):\n%s", tc.path, w.Code, diff)
				}
				return
			}
			webtest.WantAPIError(t, "GET "+tc.path, w, tc.status, tc.field)
		})
	}
}

func TestTaskCancelAndReady(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	queued := webtest.Decode[map[string]any](t, s.Post("/api/v1/tasks", webtest.TaskBody(nil)))
	waiting := webtest.Decode[map[string]any](t, s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"data_ready": "false"})))
	path := func(task map[string]any, action string) string {
		return "/api/v1/tasks/" + webtest.IDStr(int64(task["id"].(float64))) + "/" + action
	}
	steps := []struct {
		name   string
		path   string
		status int
		state  string
	}{
		{"cancel queued", path(queued, "cancel"), 200, "cancelled"},
		{"cancel again", path(queued, "cancel"), 409, ""},
		{"ready a cancelled task", path(queued, "ready"), 409, ""},
		{"ready waiting", path(waiting, "ready"), 200, "queued"},
		{"ready again", path(waiting, "ready"), 409, ""},
		{"cancel the now queued", path(waiting, "cancel"), 200, "cancelled"},
		{"cancel unknown", "/api/v1/tasks/999/cancel", 404, ""},
		{"ready unknown", "/api/v1/tasks/999/ready", 404, ""},
		{"cancel bad id", "/api/v1/tasks/x/cancel", 400, ""},
	}
	for _, st := range steps {
		before := s.Sched.Triggers()
		w := s.Post(st.path, "")
		if w.Code != st.status {
			t.Fatalf("POST %s (%s) = %d %s, want %d", st.path, st.name, w.Code, w.Body, st.status)
		}
		triggered := s.Sched.Triggers() - before
		if st.status != http.StatusOK {
			if triggered != 0 {
				t.Errorf("POST %s (%s) triggered the scheduler", st.path, st.name)
			}
			e := webtest.Decode[api.Error](t, w)
			if e.Error == "" || strings.Contains(e.Error, "models:") {
				t.Errorf("POST %s (%s) error = %q, want a message without internals", st.path, st.name, e.Error)
			}
			continue
		}
		got := webtest.Decode[map[string]any](t, w)
		if got["state"] != st.state || triggered != 1 {
			t.Errorf("POST %s (%s) = state %v, %d triggers, want %s and 1", st.path, st.name, got["state"], triggered, st.state)
		}
		if st.state == "cancelled" && got["ended_at"] != webtest.T0.Format(time.RFC3339) {
			t.Errorf("POST %s ended_at = %v, want %s", st.path, got["ended_at"], webtest.T0.Format(time.RFC3339))
		}
		if st.state == "queued" && got["data_ready"] != true {
			t.Errorf("POST %s data_ready = %v, want true", st.path, got["data_ready"])
		}
	}
}

func TestAgentTaskLifecycle(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		var n1Samples []api.Sample
		for _, u := range nodes["n1"].UUIDs {
			n1Samples = append(n1Samples, webtest.Sample(u, webtest.T0.Add(-30*time.Second), 0, 0))
		}
		s.PostSamples(nodes["n1"].Token, n1Samples...)

		w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"gpus": "2", "spec": `"A100-80G"`,
			"command": `["torchrun","--nproc","2","train.py"]`, "env": `{"SEED":"7"}`, "workdir": `"/data/r1"`, "queue": `"short"`}))
		if w.Code != http.StatusCreated {
			t.Fatalf("POST /api/v1/tasks = %d %s, want 201", w.Code, w.Body)
		}
		id := int64(webtest.Decode[map[string]any](t, w)["id"].(float64))
		other := s.Create(webtest.Task("other").Ready(), webtest.T0)
		s.Place(models.Task{ID: id}, webtest.T0, "GPU-n1-1", "GPU-n1-2")
		s.Place(other, webtest.T0, "GPU-n2-0")
		statusPath := api.PathTaskStatus + webtest.IDStr(id) + "/status"

		// The node sees its task; the other node sees only its own.
		w = s.Get(api.PathAssignments, webtest.Bearer(nodes["n1"].Token)...)
		want := api.AssignmentsResponse{Tasks: []api.Assignment{{TaskID: id, GPUUUIDs: []string{"GPU-n1-1", "GPU-n1-2"},
			Command: []string{"torchrun", "--nproc", "2", "train.py"}, Env: map[string]string{"SEED": "7"}, Workdir: "/data/r1",
			MaxRuntimeS: 7200, NNodes: 1, WorldSize: 2, MasterAddr: "n1", MasterPort: 29500 + int(id%1000), Attempt: 1}}}
		if diff := cmp.Diff(want, webtest.Decode[api.AssignmentsResponse](t, w)); w.Code != http.StatusOK || diff != "" {
			t.Errorf("GET %s as n1 = %d (-want +got):\n%s", api.PathAssignments, w.Code, diff)
		}
		if w := s.Get(api.PathAssignments, webtest.Bearer(nodes["h1"].Token)...); w.Code != http.StatusOK || len(webtest.Decode[api.AssignmentsResponse](t, w).Tasks) != 0 {
			t.Errorf("GET %s as h1 = %d %q, want no tasks", api.PathAssignments, w.Code, w.Body)
		}
		if w := s.Get(api.PathAssignments); w.Code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token = %d, want 401", api.PathAssignments, w.Code)
		}
		if g := webtest.GPUByUUID(t, s, "GPU-n1-1"); g.TaskID == nil || *g.TaskID != id || g.State != "idle" {
			t.Errorf("GET /api/v1/gpus GPU-n1-1 = %+v, want held by task %d", g, id)
		}

		steps := []struct {
			name    string
			token   string
			path    string
			body    string
			status  int
			state   string
			trigger int
		}{
			{"another node's task", "n2", statusPath, `{"state":"running","ts":"2026-03-02T09:00:00Z"}`, 404, "starting", 0},
			{"a node without the task", "h1", statusPath, `{"state":"exited","exit_code":0}`, 404, "starting", 0},
			{"unknown task", "n1", api.PathTaskStatus + "999/status", `{"state":"running"}`, 404, "starting", 0},
			{"bad id", "n1", api.PathTaskStatus + "x/status", `{"state":"running"}`, 400, "starting", 0},
			{"bad state", "n1", statusPath, `{"state":"paused"}`, 422, "starting", 0},
			{"negative output", "n1", statusPath, `{"state":"exited","output_units":-1}`, 422, "starting", 0},
			{"output beyond the bound", "n1", statusPath, `{"state":"exited","output_units":1000000001}`, 422, "starting", 0},
			{"running", "n1", statusPath, `{"state":"running","ts":"2026-03-02T09:00:00Z"}`, 204, "running", 0},
			{"running again", "n1", statusPath, `{"state":"running","ts":"2026-03-02T09:00:00Z"}`, 204, "running", 0},
			{"exited 0", "n1", statusPath, `{"state":"exited","ts":"2026-03-02T09:00:00Z","exit_code":0,"output_units":12}`, 204, "succeeded", 1},
			{"exited again, late", "n1", statusPath, `{"state":"exited","exit_code":3}`, 204, "succeeded", 1},
		}
		for _, st := range steps {
			before := s.Sched.Triggers()
			w := s.Post(st.path, st.body, webtest.Bearer(nodes[st.token].Token)...)
			if w.Code != st.status {
				t.Fatalf("POST %s %s = %d %s, want %d", st.path, st.name, w.Code, w.Body, st.status)
			}
			if st.status == http.StatusNoContent && w.Body.Len() != 0 {
				t.Errorf("POST %s %s body = %q, want none", st.path, st.name, w.Body)
			}
			if got := s.Sched.Triggers() - before; got != st.trigger {
				t.Errorf("POST %s %s triggered the scheduler %d times, want %d", st.path, st.name, got, st.trigger)
			}
			if got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))["state"]; got != st.state {
				t.Errorf("after POST %s %s the task is %v, want %s", st.path, st.name, got, st.state)
			}
		}

		done := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
		if done["exit_code"] != 0.0 || done["ended_at"] != webtest.T0.Format(time.RFC3339) || done["output_units"] != 12.0 {
			t.Errorf("GET /api/v1/tasks/%d = exit %v ended %v output %v, want 0, %s, 12", id, done["exit_code"], done["ended_at"], done["output_units"], webtest.T0.Format(time.RFC3339))
		}
		open, err := s.Store.OpenAllocations(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range open {
			if a.TaskID == id {
				t.Errorf("allocation %+v of the finished task is still open", a)
			}
		}
		for _, u := range []string{"GPU-n1-1", "GPU-n1-2"} {
			if g := webtest.GPUByUUID(t, s, u); g.TaskID != nil || g.Project != nil || g.State != "free" {
				t.Errorf("GET /api/v1/gpus %s after the exit = %+v, want free", u, g)
			}
		}
		if g := webtest.GPUByUUID(t, s, "GPU-n2-0"); g.TaskID == nil || *g.TaskID != other.ID {
			t.Errorf("GET /api/v1/gpus GPU-n2-0 = %+v, want still held by task %d", g, other.ID)
		}
		if w := s.Get(api.PathAssignments, webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK || len(webtest.Decode[api.AssignmentsResponse](t, w).Tasks) != 0 {
			t.Errorf("GET %s as n1 after the exit = %q, want no tasks", api.PathAssignments, w.Body)
		}
	})
}

// TestTaskCancelRunning: a running task is stopped through its node; it ends cancelled when
// the process exits.
func TestTaskCancelRunning(t *testing.T) {
	s := webtest.NewServer(t)
	nodes := webtest.TaskFleet(s)
	tk := s.Create(webtest.Task("long-job").Ready(), webtest.T0)
	s.Place(tk, webtest.T0, "GPU-n1-0")
	path := api.PathTaskStatus + webtest.IDStr(tk.ID) + "/status"
	if w := s.Post(path, `{"state":"running"}`, webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusNoContent {
		t.Fatalf("POST %s running = %d %s", path, w.Code, w.Body)
	}
	w := s.Post("/api/v1/tasks/"+webtest.IDStr(tk.ID)+"/cancel", "")
	if got := webtest.Decode[map[string]any](t, w); w.Code != http.StatusOK || got["state"] != "running" {
		t.Errorf("POST cancel of a running task = %d state %v, want 200 and still running", w.Code, got["state"])
	}
	as := webtest.Decode[api.AssignmentsResponse](t, s.Get(api.PathAssignments, webtest.Bearer(nodes["n1"].Token)...))
	if len(as.Tasks) != 1 || !as.Tasks[0].Stop {
		t.Errorf("GET %s after cancel = %+v, want the task with stop set", api.PathAssignments, as)
	}
	if w := s.Post("/api/v1/tasks/"+webtest.IDStr(tk.ID)+"/cancel", ""); w.Code != http.StatusOK {
		t.Errorf("POST cancel twice while it stops = %d, want 200 (the first stop holds)", w.Code)
	}
	if w := s.Post(path, `{"state":"exited","exit_code":143}`, webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusNoContent {
		t.Fatalf("POST %s exited = %d %s", path, w.Code, w.Body)
	}
	if got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(tk.ID))); got["state"] != "cancelled" || got["exit_code"] != 143.0 {
		t.Errorf("GET task after the stop = state %v exit %v, want cancelled 143", got["state"], got["exit_code"])
	}
	if w := s.Post("/api/v1/tasks/"+webtest.IDStr(tk.ID)+"/cancel", ""); w.Code != http.StatusConflict {
		t.Errorf("POST cancel of a cancelled task = %d, want 409", w.Code)
	}
}

// TestTaskListState: ?state= filters by task states, a comma-separated list; any other value
// is a 400 naming state, never an empty list that looks like "no such tasks". ?owner= too: an
// owner who is no user is a 400 naming owner.
func TestTaskListState(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	for _, body := range []string{webtest.TaskBody(nil), webtest.TaskBody(map[string]string{"data_ready": "false"})} {
		if w := s.Post("/api/v1/tasks", body); w.Code != http.StatusCreated {
			t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
		}
	}
	for _, st := range api.TaskStates() {
		path := "/api/v1/tasks?state=" + string(st)
		w := s.Get(path)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d %s, want 200", path, w.Code, w.Body)
		}
		for _, got := range webtest.Decode[[]api.Task](t, w) {
			if got.State != st {
				t.Errorf("GET %s lists task %d in state %s", path, got.ID, got.State)
			}
		}
	}
	if got := webtest.Decode[[]api.Task](t, s.Get("/api/v1/tasks?state=queued")); len(got) != 1 {
		t.Errorf("GET /api/v1/tasks?state=queued = %d tasks, want 1", len(got))
	}
	if got := webtest.Decode[[]api.Task](t, s.Get("/api/v1/tasks?state=queued,waiting-data")); len(got) != 2 {
		t.Errorf("GET /api/v1/tasks?state=queued,waiting-data = %d tasks, want 2", len(got))
	}
	for _, bad := range []string{"bogus", "Queued", "running,bogus", "%ff", "waiting%00"} {
		path := "/api/v1/tasks?state=" + bad
		webtest.WantAPIError(t, "GET "+path, s.Get(path), http.StatusBadRequest, "state")
	}
	owner := webtest.Decode[[]api.Task](t, s.Get("/api/v1/tasks"))[0].Owner
	if got := webtest.Decode[[]api.Task](t, s.Get("/api/v1/tasks?owner="+owner)); len(got) != 2 {
		t.Errorf("GET /api/v1/tasks?owner=%s = %d tasks, want 2", owner, len(got))
	}
	if got := webtest.Decode[[]api.Task](t, s.Get("/api/v1/tasks?owner=tester,"+owner+"&state=queued")); len(got) != 1 {
		t.Errorf("GET /api/v1/tasks?owner=tester,%s&state=queued = %d tasks, want 1", owner, len(got))
	}
	for _, bad := range []string{"nosuchuser", owner + ",nosuchuser", "%ff", "a%00"} {
		path := "/api/v1/tasks?owner=" + bad
		webtest.WantAPIError(t, "GET "+path, s.Get(path), http.StatusBadRequest, "owner")
	}
}

// TestTaskCreateDataReadyDefault: a submit without data_ready is ready unless it names a data
// check, as the CLI, the form and templates have it; data_ready given wins.
func TestTaskCreateDataReadyDefault(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	for body, want := range map[string]string{
		webtest.TaskBody(map[string]string{"data_ready": ""}):                                                       "queued",
		webtest.TaskBody(map[string]string{"data_ready": "", "data_check": `{"url":"https://data.example/x"}`}):     "waiting-data",
		webtest.TaskBody(map[string]string{"data_ready": "false"}):                                                  "waiting-data",
		webtest.TaskBody(map[string]string{"data_ready": "true", "data_check": `{"url":"https://data.example/x"}`}): "queued",
	} {
		w := s.Post("/api/v1/tasks", body)
		if got := webtest.Decode[api.Task](t, w); w.Code != http.StatusCreated || string(got.State) != want {
			t.Errorf("POST %s = %d, state %s; want 201, %s", body, w.Code, got.State, want)
		}
	}
}
