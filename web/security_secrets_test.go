package web_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestEnvValuesNeverShown: after submit the API shows a task's variable names only; values
// marked secret are stored encrypted and reach only the node that runs the task.
func TestEnvValuesNeverShown(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		key := bytes.Repeat([]byte{7}, models.SecretKeySize)
		if err := s.Store.SetSecretKey(key); err != nil {
			t.Fatal(err)
		}
		w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"env": `{"HF_TOKEN":"hf_v4lue","SEED":"s33d"}`,
			"secret_env": `["HF_TOKEN"]`}))
		if w.Code != http.StatusCreated {
			t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
		}
		for _, path := range []string{"", "/api/v1/tasks/1", "/api/v1/tasks", "/api/v1/queue"} {
			body := w.Body.String()
			if path != "" {
				body = s.Get(path).Body.String()
			}
			if strings.Contains(body, "hf_v4lue") || strings.Contains(body, "s33d") {
				t.Errorf("%q shows an env value: %s", path, body)
			}
		}
		got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/1"))["env_names"]
		if diff := cmp.Diff([]any{"HF_TOKEN", "SEED"}, got); diff != "" {
			t.Errorf("env_names (-want +got):\n%s", diff)
		}
		row, err := s.Store.TaskByID(context.Background(), 1)
		if err != nil || strings.Contains(row.Env, "hf_v4lue") || !strings.Contains(row.Env, "s33d") {
			t.Errorf("stored env = %q, %v; want the secret sealed and the plain value as is", row.Env, err)
		}
		s.Place(models.Task{ID: 1}, webtest.T0, "GPU-n1-0")
		as := webtest.Decode[api.AssignmentsResponse](t, s.Get(api.PathAssignments, webtest.Bearer(nodes["n1"].Token)...))
		if len(as.Tasks) != 1 || as.Tasks[0].Env["HF_TOKEN"] != "hf_v4lue" {
			t.Errorf("assignment = %+v, want HF_TOKEN opened for the node", as.Tasks)
		}
		bad := map[string]struct {
			raw   map[string]string
			field string
		}{
			"secret not in env":     {map[string]string{"env": `{"A":"1"}`, "secret_env": `["B"]`}, "secret_env[0]"},
			"value looks sealed":    {map[string]string{"env": `{"A":"kashi-sealed:v1:xx"}`}, "env.A"},
			"more secrets than env": {map[string]string{"env": `{"A":"1"}`, "secret_env": `["A","A"]`}, "secret_env"},
		}
		for name, tc := range bad {
			webtest.WantAPIError(t, name, s.Post("/api/v1/tasks", webtest.TaskBody(tc.raw)), http.StatusUnprocessableEntity, tc.field)
		}
	})
}

// TestSecretEnvWithoutKey: without a secret key, secret values are refused, not stored plain.
func TestSecretEnvWithoutKey(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"env": `{"A":"1"}`, "secret_env": `["A"]`}))
	webtest.WantAPIError(t, "secret_env without a key", w, http.StatusUnprocessableEntity, "secret_env")
}

// TestQueueHidesOtherProjectsRuns: the queue shows everyone what waits, but a task's
// command, environment, workdir and data check only to those who may see the task.
func TestQueueHidesOtherProjectsRuns(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	s.Projects("audio")
	outsider := s.Member("olga", "audio")
	w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"command": `["python","canary-cmd.py"]`, "env": `{"CANARY_ENV":"1"}`,
		"workdir": `"/canary-dir"`, "data_ready": "false", "data_check": `{"path":"/data/canary-path"}`}))
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
	}
	q := s.Get("/api/v1/queue", webtest.Bearer(outsider)...)
	if q.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/queue = %d", q.Code)
	}
	if strings.Contains(q.Body.String(), "canary") || strings.Contains(q.Body.String(), "CANARY") {
		t.Errorf("GET /api/v1/queue as another project's member shows how the task runs: %s", q.Body)
	}
	if !strings.Contains(s.Get("/api/v1/queue").Body.String(), "canary-cmd.py") {
		t.Errorf("GET /api/v1/queue as an admin does not show the command")
	}
}
