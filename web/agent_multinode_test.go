package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/api"
)

// twoNodeTask registers n1 and n2 (4 A100 each, in that order: n1 is rank 0) and places an
// 8-GPU task on both.
func twoNodeTask(s *server) (n1, n2 registered, id int64) {
	s.tb.Helper()
	n1 = s.register(node("n1").inPool("a100").cards(a100Name, a100MiB, 4))
	n2 = s.register(node("n2").inPool("a100").cards(a100Name, a100MiB, 4))
	s.projects("vision")
	tk := s.create(task("ddp").gpus(8).ready(), t0)
	s.place(tk, t0, append(append([]string{}, n1.UUIDs...), n2.UUIDs...)...)
	return n1, n2, tk.ID
}

// assigned is the node's assignment of task id, and whether it has one.
func (s *server) assigned(n registered, id int64) (api.Assignment, bool) {
	s.tb.Helper()
	w := s.get(api.PathAssignments, bearer(n.Token)...)
	if w.Code != http.StatusOK {
		s.tb.Fatalf("GET assignments = %d %s", w.Code, w.Body)
	}
	for _, a := range decode[api.AssignmentsResponse](s.tb, w).Tasks {
		if a.TaskID == id {
			return a, true
		}
	}
	return api.Assignment{}, false
}

// report posts a node's status report of task id and fails the test unless it is 204.
func (s *server) report(n registered, id int64, body string) {
	s.tb.Helper()
	if w := s.post(api.PathTaskStatus+idStr(id)+"/status", body, bearer(n.Token)...); w.Code != http.StatusNoContent {
		s.tb.Fatalf("POST status %s of task %d = %d %s, want 204", body, id, w.Code, w.Body)
	}
}

func TestAgentMultiNodeShape(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		n1, n2, id := twoNodeTask(s)
		port := 29500 + int(id%1000)
		for i, tc := range []struct {
			n    registered
			want api.Assignment
		}{
			{n1, api.Assignment{TaskID: id, GPUUUIDs: n1.UUIDs, NodeRank: 0, NNodes: 2, WorldSize: 8, Rank: 0, MasterAddr: "n1", MasterPort: port}},
			{n2, api.Assignment{TaskID: id, GPUUUIDs: n2.UUIDs, NodeRank: 1, NNodes: 2, WorldSize: 8, Rank: 4, MasterAddr: "n1", MasterPort: port}},
		} {
			got, ok := s.assigned(tc.n, id)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(api.Assignment{}, "Command", "MaxRuntimeS")); !ok || diff != "" {
				t.Errorf("node %d's assignment (listed %v) (-want +got):\n%s", i+1, ok, diff)
			}
		}
	})
}

func TestAgentMultiNodeExits(t *testing.T) {
	const running, exit0, exit1 = `{"state":"running"}`, `{"state":"exited","exit_code":0}`, `{"state":"exited","exit_code":1}`
	tests := map[string]struct {
		first, second string
		// stopAsked: after the first exit, the second node is asked to stop.
		stopAsked     bool
		state, reason string
		exitCode      float64
	}{
		"both succeed":          {exit0, exit0, false, "succeeded", "exited 0", 0},
		"rank 0 fails":          {exit1, `{"state":"exited","exit_code":143}`, true, "failed", "node n1 (rank 0) exited 1", 1},
		"rank 0 fails to start": {`{"state":"failed-to-start","message":"no such file"}`, `{"state":"exited","exit_code":143}`, true, "failed", "failed to start on node n1 (rank 0): no such file", 0},
		"rank 1 fails last":     {exit0, exit1, false, "failed", "node n2 (rank 1) exited 1", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			forEachDB(t, func(t *testing.T, s *server) {
				n1, n2, id := twoNodeTask(s)
				s.report(n1, id, running)
				s.report(n2, id, running)
				s.report(n1, id, tc.first)
				s.report(n1, id, tc.first) // resent from the spool: no change
				if _, ok := s.assigned(n1, id); ok {
					t.Errorf("n1 is still assigned task %d after it exited there", id)
				}
				a, ok := s.assigned(n2, id)
				if !ok || a.Stop != tc.stopAsked {
					t.Errorf("n2's assignment after n1's exit: listed %v, stop %v; want listed, stop %v", ok, a.Stop, tc.stopAsked)
				}
				if got := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(id)))["state"]; got != "running" {
					t.Errorf("task is %v after one node's exit, want running", got)
				}
				s.report(n2, id, tc.second)
				got := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(id)))
				if got["state"] != tc.state || got["reason"] != tc.reason || got["exit_code"] != tc.exitCode {
					t.Errorf("task ended %v %q exit %v, want %s %q exit %v", got["state"], got["reason"], got["exit_code"], tc.state, tc.reason, tc.exitCode)
				}
				for _, n := range []registered{n1, n2} {
					if _, ok := s.assigned(n, id); ok {
						t.Errorf("a node is still assigned task %d after it ended", id)
					}
				}
				if g := s.boardGPU(n2.UUIDs[0]); g.TaskID != 0 {
					t.Errorf("n2's GPU still held by task %v after the task ended", g.TaskID)
				}
			})
		})
	}
}

// TestAgentMultiNodeLost: a lost node fails the task, which ends when its other node, asked
// to stop, has exited; that node's report is accepted.
func TestAgentMultiNodeLost(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		n1, n2, id := twoNodeTask(s)
		s.report(n1, id, `{"state":"running"}`)
		later := s.clock().Add(10 * time.Minute)
		if _, err := s.store.MarkLostNodes(context.Background(), []int64{n2.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.setNow(later)
		if a, ok := s.assigned(n1, id); !ok || !a.Stop {
			t.Fatalf("n1's assignment after n2 was lost: listed %v, stop %v; want listed, stop", ok, a.Stop)
		}
		s.report(n1, id, `{"state":"exited","exit_code":143}`)
		got := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(id)))
		if got["state"] != "failed" || got["reason"] != "node n2 (rank 1) lost" {
			t.Errorf("task ended %v %q, want failed, node n2 (rank 1) lost", got["state"], got["reason"])
		}
	})
}

// TestAgentLateNodeReports: every node's report about a task that has already ended is
// accepted (204) and changes nothing: a lost node that comes back and reports its exit, a
// report resent from a node's spool, a late "running".
func TestAgentLateNodeReports(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		n1, n2, id := twoNodeTask(s)
		s.report(n1, id, `{"state":"running"}`)
		s.report(n2, id, `{"state":"running"}`)
		later := s.clock().Add(10 * time.Minute)
		if _, err := s.store.MarkLostNodes(context.Background(), []int64{n2.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.setNow(later)
		s.report(n1, id, `{"state":"exited","exit_code":143}`)
		before := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(id)))
		s.setNow(later.Add(time.Minute))
		s.report(n2, id, `{"state":"exited","exit_code":0}`)
		s.report(n2, id, `{"state":"exited","exit_code":0}`)
		s.report(n1, id, `{"state":"exited","exit_code":143}`)
		s.report(n2, id, `{"state":"running"}`)
		s.report(n1, id, `{"state":"failed-to-start","message":"late"}`)
		after := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(id)))
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("late reports changed the ended task (-before +after):\n%s", diff)
		}
		if after["state"] != "failed" || after["reason"] != "node n2 (rank 1) lost" {
			t.Errorf("task ended %v %q, want failed, node n2 (rank 1) lost", after["state"], after["reason"])
		}
	})
}

// TestAgentLateReportSingleNode: the node of a one-node task given up as lost comes back and
// reports the task's exit: accepted, the task stays failed as lost.
func TestAgentLateReportSingleNode(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		n := s.register(node("n1").inPool("a100").cards(a100Name, a100MiB, 4))
		s.projects("vision")
		tk := s.create(task("one").gpus(4).ready(), t0)
		s.place(tk, t0, n.UUIDs...)
		s.report(n, tk.ID, `{"state":"running"}`)
		later := s.clock().Add(10 * time.Minute)
		if _, err := s.store.MarkLostNodes(context.Background(), []int64{n.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.setNow(later)
		before := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(tk.ID)))
		s.report(n, tk.ID, `{"state":"exited","exit_code":0}`)
		after := decode[map[string]any](t, s.get("/api/v1/tasks/"+idStr(tk.ID)))
		if diff := cmp.Diff(before, after); diff != "" || after["state"] != "failed" {
			t.Errorf("a late exit changed the lost task (state %v) (-before +after):\n%s", after["state"], diff)
		}
	})
}
