package web_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// TestTaskSpecsAndRegions submits tasks that accept several specs and regions: the answer
// shows them and the data's region; bad lists are 422 naming the field.
func TestTaskSpecsAndRegions(t *testing.T) {
	f := newTemplateFixture(t)
	for body, field := range map[string]string{
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "specs": ["A100-80G", "nope"]}`:       "specs",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "specs": ["A100-80G", "A100-80G"]}`:   "specs",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "specs": ["A100-80G"], "spec": "H1"}`: "spec",
		`{"project": "vision", "name": "x", "gpus": 9, "command": ["x"], "specs": ["A100-80G"]}`:               "gpus",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "regions": [""]}`:                     "regions",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "data_check": {"region": "cn-east"}}`: "data_check.region",
	} {
		w := f.s.post("/api/v1/tasks", body, bearer(f.member)...)
		if e := decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != field {
			t.Errorf("POST %s = %d %s, want 422 naming %s", body, w.Code, w.Body, field)
		}
	}
	w := f.s.post("/api/v1/tasks", `{"project": "vision", "name": "x", "gpus": 2, "command": ["x"], "specs": ["A100-80G"],
		"regions": ["cn-east", "cn-west"], "data_check": {"path": "/data/set", "region": "cn-west"}}`, bearer(f.member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit = %d %s, want 201", w.Code, w.Body)
	}
	type out struct {
		Specs     []string          `json:"specs"`
		Regions   []string          `json:"regions"`
		DataCheck map[string]string `json:"data_check"`
	}
	want := out{[]string{"A100-80G"}, []string{"cn-east", "cn-west"}, map[string]string{"path": "/data/set", "region": "cn-west"}}
	if diff := cmp.Diff(want, decode[out](t, w)); diff != "" {
		t.Errorf("task (-want +got):\n%s", diff)
	}
}
