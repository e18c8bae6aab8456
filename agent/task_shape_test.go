package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// envValues reads env as exec does: the last entry of a name wins.
func envValues(env []string, names ...string) map[string]string {
	out := make(map[string]string)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		for _, n := range names {
			if k == n {
				out[k] = v
			}
		}
	}
	return out
}

func TestTaskEnvShape(t *testing.T) {
	names := []string{"KASHI_RANK", "KASHI_NODE_RANK", "KASHI_WORLD_SIZE", "KASHI_NNODES", "KASHI_MASTER_ADDR",
		"KASHI_MASTER_PORT", "MASTER_ADDR", "MASTER_PORT", "NNODES", "NODE_RANK"}
	shaped := api.Assignment{TaskID: 7, GPUUUIDs: []string{"GPU-a"}, NodeRank: 1, NNodes: 2, WorldSize: 16, Rank: 8,
		MasterAddr: "n1", MasterPort: 29507}
	overridden := shaped
	overridden.Env = map[string]string{"MASTER_PORT": "40000", "KASHI_NODE_RANK": "5"}
	tests := map[string]struct {
		a    api.Assignment
		want map[string]string
	}{
		"rank 1 of two nodes": {shaped, map[string]string{"KASHI_RANK": "8", "KASHI_NODE_RANK": "1", "KASHI_WORLD_SIZE": "16",
			"KASHI_NNODES": "2", "KASHI_MASTER_ADDR": "n1", "KASHI_MASTER_PORT": "29507",
			"MASTER_ADDR": "n1", "MASTER_PORT": "29507", "NNODES": "2", "NODE_RANK": "1"}},
		// The task may move torchrun's port, never its own rank.
		"the task's env": {overridden, map[string]string{"KASHI_RANK": "8", "KASHI_NODE_RANK": "1", "KASHI_WORLD_SIZE": "16",
			"KASHI_NNODES": "2", "KASHI_MASTER_ADDR": "n1", "KASHI_MASTER_PORT": "29507",
			"MASTER_ADDR": "n1", "MASTER_PORT": "40000", "NNODES": "2", "NODE_RANK": "1"}},
		"no shape from an older server": {api.Assignment{TaskID: 7}, map[string]string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, n := range names { // the host's own must not leak in
				t.Setenv(n, "")
				os.Unsetenv(n)
			}
			got := envValues(taskEnv(tc.a, os.Environ(), "/out"), names...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("taskEnv (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTaskEnvDataLocation: the server's data location for the node's region reaches the
// task as KASHI_DATA_REGION and KASHI_DATA_LOCATION, which its own env cannot change, with
// or without a shape; none without a location.
func TestTaskEnvDataLocation(t *testing.T) {
	names := []string{"KASHI_DATA_REGION", "KASHI_DATA_LOCATION"}
	placed := api.Assignment{TaskID: 7, GPUUUIDs: []string{"GPU-a"}, DataRegion: "cn-west", DataLocation: "s3://west/set",
		Env: map[string]string{"KASHI_DATA_LOCATION": "/elsewhere"}}
	shaped := placed
	shaped.NodeRank, shaped.NNodes, shaped.WorldSize, shaped.MasterAddr = 0, 2, 16, "n1"
	want := map[string]string{"KASHI_DATA_REGION": "cn-west", "KASHI_DATA_LOCATION": "s3://west/set"}
	tests := map[string]struct {
		a    api.Assignment
		want map[string]string
	}{
		"one node":         {placed, want},
		"two nodes":        {shaped, want},
		"no data location": {api.Assignment{TaskID: 7}, map[string]string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, n := range names {
				t.Setenv(n, "")
				os.Unsetenv(n)
			}
			if diff := cmp.Diff(tc.want, envValues(taskEnv(tc.a, os.Environ(), "/out"), names...)); diff != "" {
				t.Errorf("taskEnv (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTaskEnvResume: a rerun is told its attempt and the checkpoint it resumes from, which
// its own env cannot change; a first run neither.
func TestTaskEnvResume(t *testing.T) {
	names := []string{"KASHI_ATTEMPT", "KASHI_RESUME_FROM"}
	rerun := api.Assignment{TaskID: 7, Attempt: 2, ResumeFrom: "s3://ckpt/step-400", Env: map[string]string{"KASHI_RESUME_FROM": "/mine"}}
	tests := map[string]struct {
		a    api.Assignment
		want map[string]string
	}{
		"rerun":       {rerun, map[string]string{"KASHI_ATTEMPT": "2", "KASHI_RESUME_FROM": "s3://ckpt/step-400"}},
		"first run":   {api.Assignment{TaskID: 7, Attempt: 1}, map[string]string{}},
		"old servers": {api.Assignment{TaskID: 7}, map[string]string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, n := range names {
				t.Setenv(n, "")
				os.Unsetenv(n)
			}
			if diff := cmp.Diff(tc.want, envValues(taskEnv(tc.a, os.Environ(), "/out"), names...)); diff != "" {
				t.Errorf("taskEnv (-want +got):\n%s", diff)
			}
		})
	}
}
