package api

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkDocumented compares list, in order, with the enum of the property reached through
// path in the OpenAPI document's component schemas; in an allOf, path goes on in the first
// part that has its next step.
func checkDocumented[C ~string](t *testing.T, list []C, path ...string) {
	t.Helper()
	var node any
	if err := json.Unmarshal(OpenAPI, &node); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	for _, step := range append([]string{"components", "schemas"}, path...) {
		switch n := node.(type) {
		case map[string]any:
			node = n[step]
		case []any:
			i := slices.IndexFunc(n, func(part any) bool { m, _ := part.(map[string]any); return m[step] != nil })
			node = nil
			if i >= 0 {
				node = n[i].(map[string]any)[step]
			}
		}
		if node == nil {
			t.Fatalf("openapi.json has no %v", path)
		}
	}
	raw, _ := json.Marshal(node.(map[string]any)["enum"])
	var enum []C
	if err := json.Unmarshal(raw, &enum); err != nil {
		t.Fatalf("openapi.json %v: enum: %v", path, err)
	}
	if diff := cmp.Diff(list, enum); diff != "" {
		t.Errorf("api's list vs openapi.json's enum of %v (-api +openapi.json):\n%s", path, diff)
	}
}

// TestCodesDocumented checks each list of codes against the enum the OpenAPI document gives
// the field that carries them, in order: a code added to one and not the other fails here.
func TestCodesDocumented(t *testing.T) {
	checkDocumented(t, TaskStates(), "Task", "properties", "state")
	checkDocumented(t, WaitReasons(), "Queue", "properties", "tasks", "items", "allOf", "properties", "reason")
	checkDocumented(t, WaitReasons(), "DryRun", "properties", "reason")
	checkDocumented(t, GPUStates(), "GPU", "properties", "state")
}

// TestStateParamDocumented: the ?state= of GET /api/v1/tasks is documented with the task
// states, the values the handler accepts.
func TestStateParamDocumented(t *testing.T) {
	type param struct {
		Name   string
		Schema struct{ Items struct{ Enum []TaskState } }
	}
	var doc struct {
		Paths map[string]map[string]struct{ Parameters []param }
	}
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	params := doc.Paths["/api/v1/tasks"]["get"].Parameters
	i := slices.IndexFunc(params, func(p param) bool { return p.Name == "state" })
	if i < 0 {
		t.Fatal("openapi.json: GET /api/v1/tasks has no state parameter")
	}
	if diff := cmp.Diff(TaskStates(), params[i].Schema.Items.Enum); diff != "" {
		t.Errorf("task states vs the state parameter's enum (-api +openapi.json):\n%s", diff)
	}
}

// TestTaskStateEnded checks which task states are final.
func TestTaskStateEnded(t *testing.T) {
	var ended []TaskState
	for _, s := range TaskStates() {
		if s.Ended() {
			ended = append(ended, s)
		}
	}
	want := []TaskState{StateSucceeded, StateFailed, StateCancelled, StateTimedOut, StateReclaimed}
	if diff := cmp.Diff(want, ended); diff != "" {
		t.Errorf("ended states (-want +got):\n%s", diff)
	}
}
