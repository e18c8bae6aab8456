package agent_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	nodeagent "kashi/agent"
	"kashi/agent/simgpu"
	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestAgentRestartKeepsRunningTask: an agent restarted on its node (registering again with
// its node token) finds its running task still assigned on the same card, the task still
// running, and the card is not given to another task.
func TestAgentRestartKeepsRunningTask(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		mine := s.Create(webtest.Task("mine").Ready(), webtest.T0)
		s.Place(mine, webtest.T0, "GPU-n1-1")
		if w := s.Get(api.PathAssignments+"?running="+webtest.IDStr(mine.ID), webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Fatalf("poll = %d %s", w.Code, w.Body)
		}
		again := s.Reregister(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4), nodes["n1"].Token)
		if again.ID != nodes["n1"].ID {
			t.Errorf("registering again gave node %d, want the same node %d", again.ID, nodes["n1"].ID)
		}
		as := webtest.Decode[api.AssignmentsResponse](t, s.Get(api.PathAssignments+"?running="+webtest.IDStr(mine.ID), webtest.Bearer(again.Token)...))
		if len(as.Tasks) != 1 || as.Tasks[0].TaskID != mine.ID || as.Tasks[0].Stop || len(as.Tasks[0].GPUUUIDs) != 1 || as.Tasks[0].GPUUUIDs[0] != "GPU-n1-1" {
			t.Errorf("assignments after the restart = %+v, want task %d on GPU-n1-1 still", as.Tasks, mine.ID)
		}
		if got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(mine.ID)))["state"]; got != "running" {
			t.Errorf("task after the restart is %v, want running", got)
		}
		other := s.Create(webtest.Task("other").Ready(), webtest.T0)
		if err := s.Store.PlaceTask(context.Background(), other.ID, s.GPUIDs("GPU-n1-1"), false, "test", webtest.T0); err == nil {
			t.Errorf("PlaceTask(another task on the running task's card) = nil, want a refusal")
		}
	})
}

// runAgent runs a real agent on backend's simulated node "gpu-1", with joinToken and the
// state directory dir, against the server at url, its clock running from start, until the
// node is registered again (its token hash is no longer was) and this run's samples arrive
// (so that the agent has kept its token), or until the registration is refused; it returns
// the node then, or Run's error.
func runAgent(t *testing.T, s *webtest.Server, url, joinToken, dir string, backend *simgpu.Backend, start time.Time, was string) (models.NodeGPUs, error) {
	t.Helper()
	began := time.Now()
	clock := func() time.Time { return start.Add(time.Since(began)) }
	a := nodeagent.New(nodeagent.Config{Server: url, JoinToken: joinToken, Pool: "a100", Hostname: "gpu-1", StateDir: dir,
		SampleInterval: time.Hour, PollInterval: time.Hour, StopGrace: time.Second, Now: clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, backend, backend.Runner())
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			return models.NodeGPUs{}, err
		default:
		}
		nodes, err := s.Store.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) == 1 && nodes[0].TokenHash != was && slices.ContainsFunc(nodes[0].GPUs, func(g models.GPU) bool {
			return g.SampledAt != nil && !g.SampledAt.Before(start)
		}) {
			stop()
			return nodes[0], <-done
		}
	}
	t.Fatal("the agent neither registered nor was refused within 10 s")
	return models.NodeGPUs{}, nil
}

// TestRealAgentRestartKeepsItsNode: a real agent registers its node, and registers it again
// after a restart with the token it kept in its state directory: the same node, with the
// same cards. The same machine reinstalled without its state directory is refused (its
// hostname and cards are the node's) until an admin issues a join token bound to the node.
func TestRealAgentRestartKeepsItsNode(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		srv := httptest.NewServer(s.E)
		defer srv.Close()
		backend := simgpu.New(simgpu.A100_80G, 2, s.Clock, 1)
		dir := t.TempDir()
		run := func(k int) time.Time { return webtest.T0.Add(time.Duration(k-10) * time.Minute) } // the agent's clock at run k
		first, err := runAgent(t, s, srv.URL, webtest.JoinToken, dir, backend, run(0), "")
		if err != nil {
			t.Fatalf("first run = %v", err)
		}
		again, err := runAgent(t, s, srv.URL, webtest.JoinToken, dir, backend, run(1), first.TokenHash)
		if err != nil || again.ID != first.ID || len(again.GPUs) != 2 {
			t.Fatalf("after a restart node %d with %d cards (%v), want node %d with 2", again.ID, len(again.GPUs), err, first.ID)
		}

		_, err = runAgent(t, s, srv.URL, webtest.JoinToken, t.TempDir(), backend, run(2), again.TokenHash)
		if apiErr, ok := errors.AsType[*nodeagent.APIError](err); !ok || apiErr.Status != http.StatusConflict || apiErr.Field != "hostname" {
			t.Fatalf("a run without the node's token = %v, want 409 on hostname", err)
		}
		w := s.Post("/api/v1/join-tokens", `{"node_id":`+webtest.IDStr(first.ID)+`}`)
		if w.Code != http.StatusCreated {
			t.Fatalf("join token of node %d = %d %s", first.ID, w.Code, w.Body)
		}
		byAdmin, err := runAgent(t, s, srv.URL, webtest.Decode[api.JoinToken](t, w).Token, t.TempDir(), backend, run(3), again.TokenHash)
		if err != nil || byAdmin.ID != first.ID {
			t.Fatalf("with the admin's join token node %d (%v), want node %d", byAdmin.ID, err, first.ID)
		}
	})
}
