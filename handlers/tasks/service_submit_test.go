package tasks_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// TestSubmitService submits an inference service through the API: the answer is its first
// replica, of kind service with no runtime limit; each replica is a task of the service; bad
// service fields are 422 naming the field.
func TestSubmitService(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	for body, field := range map[string]string{
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "kind": "service", "metrics_port": 8000}`:                                   "model",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "kind": "service", "model": "m"}`:                                           "metrics_port",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "kind": "service", "model": "m", "metrics_port": 8000, "replicas": 99}`:     "replicas",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "replicas": 2}`:                                                             "kind",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "health_path": "/health"}`:                                                  "kind",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "kind": "service", "model": "m", "metrics_port": 8000, "health_path": "h"}`: "health_path",
	} {
		w := f.S.Post("/api/v1/tasks", body, webtest.Bearer(f.Member)...)
		if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != field {
			t.Errorf("POST %s = %d %s, want 422 naming %s", body, w.Code, w.Body, field)
		}
	}
	w := f.S.Post("/api/v1/tasks", `{"project": "vision", "name": "chat", "gpus": 1, "command": ["vllm", "serve"],
		"kind": "service", "model": "qwen2.5-7b", "replicas": 2, "metrics_port": 8000, "health_path": "/health"}`, webtest.Bearer(f.Member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit = %d %s, want 201", w.Code, w.Body)
	}
	type out struct {
		ID          int64  `json:"id"`
		Kind        string `json:"kind"`
		Model       string `json:"model"`
		ServiceID   int64  `json:"service_id"`
		Replicas    int    `json:"replicas"`
		MetricsPort int    `json:"metrics_port"`
		MetricsPath string `json:"metrics_path"`
		HealthPath  string `json:"health_path"`
		MaxRuntimeS int64  `json:"max_runtime_s"`
	}
	got := webtest.Decode[out](t, w)
	want := out{ID: got.ID, Kind: "service", Model: "qwen2.5-7b", ServiceID: got.ID, Replicas: 2, MetricsPort: 8000, MetricsPath: "/metrics", HealthPath: "/health"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("service (-want +got):\n%s", diff)
	}
	w = f.S.Get("/api/v1/tasks?project=vision", webtest.Bearer(f.Member)...)
	var list []out
	for _, tk := range webtest.Decode[[]out](t, w) {
		if tk.ServiceID == got.ID {
			list = append(list, tk)
		}
	}
	if len(list) != 2 {
		t.Errorf("GET /api/v1/tasks lists %d replicas of service %d, want 2: %s", len(list), got.ID, w.Body)
	}
}
