package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/api"
	"kashi/web/webtest"
)

// twoNodeTask registers n1 and n2 (4 A100 each, in that order: n1 is rank 0) and places an
// 8-GPU task on both, of one attempt (never rerun).
func twoNodeTask(s *webtest.Server) (n1, n2 webtest.Registered, id int64) {
	return twoNodeTaskOf(s, 1)
}

// twoNodeTaskOf is twoNodeTask of a task of the given attempts.
func twoNodeTaskOf(s *webtest.Server, attempts int) (n1, n2 webtest.Registered, id int64) {
	s.Tb.Helper()
	n1 = s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
	n2 = s.Register(webtest.Node("n2").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
	s.Projects("vision")
	tk := s.Create(webtest.Task("ddp").GPUs(8).Ready().Attempts(attempts), webtest.T0)
	s.Place(tk, webtest.T0, append(append([]string{}, n1.UUIDs...), n2.UUIDs...)...)
	return n1, n2, tk.ID
}

func TestAgentMultiNodeShape(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1, n2, id := twoNodeTask(s)
		port := 29500 + int(id%1000)
		for i, tc := range []struct {
			n    webtest.Registered
			want api.Assignment
		}{
			{n1, api.Assignment{TaskID: id, GPUUUIDs: n1.UUIDs, NodeRank: 0, NNodes: 2, WorldSize: 8, Rank: 0, MasterAddr: "n1", MasterPort: port, Attempt: 1}},
			{n2, api.Assignment{TaskID: id, GPUUUIDs: n2.UUIDs, NodeRank: 1, NNodes: 2, WorldSize: 8, Rank: 4, MasterAddr: "n1", MasterPort: port, Attempt: 1}},
		} {
			got, ok := s.Assigned(tc.n, id)
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
		exitCode      any // nil: none
	}{
		"both succeed":          {exit0, exit0, false, "succeeded", "exit code 0", 0.0},
		"rank 0 fails":          {exit1, `{"state":"exited","exit_code":143}`, true, "failed", "node n1 (rank 0) exited 1", 1.0},
		"rank 0 fails to start": {`{"state":"failed-to-start","message":"no such file"}`, `{"state":"exited","exit_code":143}`, true, "failed", "failed to start on node n1 (rank 0): no such file", nil},
		"rank 1 fails last":     {exit0, exit1, false, "failed", "node n2 (rank 1) exited 1", 1.0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
				n1, n2, id := twoNodeTask(s)
				s.Report(n1, id, running)
				s.Report(n2, id, running)
				s.Report(n1, id, tc.first)
				s.Report(n1, id, tc.first) // resent from the spool: no change
				if _, ok := s.Assigned(n1, id); ok {
					t.Errorf("n1 is still assigned task %d after it exited there", id)
				}
				a, ok := s.Assigned(n2, id)
				if !ok || a.Stop != tc.stopAsked {
					t.Errorf("n2's assignment after n1's exit: listed %v, stop %v; want listed, stop %v", ok, a.Stop, tc.stopAsked)
				}
				if got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))["state"]; got != "running" {
					t.Errorf("task is %v after one node's exit, want running", got)
				}
				s.Report(n2, id, tc.second)
				got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
				if got["state"] != tc.state || got["reason"] != tc.reason || got["exit_code"] != tc.exitCode {
					t.Errorf("task ended %v %q exit %v, want %s %q exit %v", got["state"], got["reason"], got["exit_code"], tc.state, tc.reason, tc.exitCode)
				}
				for _, n := range []webtest.Registered{n1, n2} {
					if _, ok := s.Assigned(n, id); ok {
						t.Errorf("a node is still assigned task %d after it ended", id)
					}
				}
				if g := s.BoardGPU(n2.UUIDs[0]); g.TaskID != 0 {
					t.Errorf("n2's GPU still held by task %v after the task ended", g.TaskID)
				}
			})
		})
	}
}

// TestAgentFailedStartHasNoExitCode: a task whose process could not be started has no exit
// code (null), not 0, so a script waiting for it does not read it as a success.
func TestAgentFailedStartHasNoExitCode(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1 := s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1))
		s.Projects("vision")
		tk := s.Create(webtest.Task("broken").GPUs(1).Ready().Attempts(1), webtest.T0)
		s.Place(tk, webtest.T0, n1.UUIDs...)
		s.Report(n1, tk.ID, `{"state":"failed-to-start","exit_code":-1,"message":"no such file"}`)
		got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(tk.ID)))
		if code, ok := got["exit_code"]; got["state"] != "failed" || !ok || code != nil {
			t.Errorf("task that failed to start: %v, exit_code %v (present %v); want failed, null", got["state"], code, ok)
		}
	})
}

// TestAgentMultiNodeLost: a lost node fails the task without an attempt left, which ends
// when its other node, asked to stop, has exited; that node's report is accepted.
func TestAgentMultiNodeLost(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1, n2, id := twoNodeTask(s)
		s.Report(n1, id, `{"state":"running"}`)
		later := s.Clock().Add(10 * time.Minute)
		if _, err := s.Store.MarkLostNodes(context.Background(), []int64{n2.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.SetNow(later)
		if a, ok := s.Assigned(n1, id); !ok || !a.Stop {
			t.Fatalf("n1's assignment after n2 was lost: listed %v, stop %v; want listed, stop", ok, a.Stop)
		}
		s.Report(n1, id, `{"state":"exited","exit_code":143}`)
		got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
		if got["state"] != "failed" || got["reason"] != "node n2 (rank 1) lost; no attempt left (1 of 1)" {
			t.Errorf("task ended %v %q, want failed, node n2 (rank 1) lost, no attempt left", got["state"], got["reason"])
		}
	})
}

// TestAgentMultiNodeRerun: a task of two nodes with an attempt left that loses one is queued
// again once its other node, asked to stop, has exited.
func TestAgentMultiNodeRerun(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1, n2, id := twoNodeTaskOf(s, 2)
		s.Report(n1, id, `{"state":"running"}`)
		later := s.Clock().Add(10 * time.Minute)
		if _, err := s.Store.MarkLostNodes(context.Background(), []int64{n2.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.SetNow(later)
		s.Report(n1, id, `{"state":"exited","exit_code":143,"attempt":1}`)
		got := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
		if got["state"] != "queued" || got["reason"] != "queued again for attempt 2 of 2; node n2 (rank 1) lost" || got["attempt"] != 2.0 {
			t.Errorf("task with an attempt left: %v %q attempt %v, want queued for attempt 2", got["state"], got["reason"], got["attempt"])
		}
	})
}

// TestAgentLateNodeReports: every node's report about a task that has already ended is
// accepted (204) and changes nothing: a lost node that comes back and reports its exit, a
// report resent from a node's spool, a late "running".
func TestAgentLateNodeReports(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1, n2, id := twoNodeTask(s)
		s.Report(n1, id, `{"state":"running"}`)
		s.Report(n2, id, `{"state":"running"}`)
		later := s.Clock().Add(10 * time.Minute)
		if _, err := s.Store.MarkLostNodes(context.Background(), []int64{n2.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.SetNow(later)
		s.Report(n1, id, `{"state":"exited","exit_code":143}`)
		before := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
		s.SetNow(later.Add(time.Minute))
		s.Report(n2, id, `{"state":"exited","exit_code":0}`)
		s.Report(n2, id, `{"state":"exited","exit_code":0}`)
		s.Report(n1, id, `{"state":"exited","exit_code":143}`)
		s.Report(n2, id, `{"state":"running"}`)
		s.Report(n1, id, `{"state":"failed-to-start","message":"late"}`)
		after := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("late reports changed the ended task (-before +after):\n%s", diff)
		}
		if after["state"] != "failed" || after["reason"] != "node n2 (rank 1) lost; no attempt left (1 of 1)" {
			t.Errorf("task ended %v %q, want failed, node n2 (rank 1) lost", after["state"], after["reason"])
		}
	})
}

// TestAgentLateReportSingleNode: the node of a one-node task given up as lost comes back and
// reports the task's exit: accepted, the task stays queued for its rerun.
func TestAgentLateReportSingleNode(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n := s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
		s.Projects("vision")
		tk := s.Create(webtest.Task("one").GPUs(4).Ready(), webtest.T0)
		s.Place(tk, webtest.T0, n.UUIDs...)
		s.Report(n, tk.ID, `{"state":"running"}`)
		later := s.Clock().Add(10 * time.Minute)
		if _, err := s.Store.MarkLostNodes(context.Background(), []int64{n.ID}, later.Add(-time.Minute), later); err != nil {
			t.Fatal(err)
		}
		s.SetNow(later)
		before := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(tk.ID)))
		s.Report(n, tk.ID, `{"state":"exited","exit_code":0}`)
		after := webtest.Decode[map[string]any](t, s.Get("/api/v1/tasks/"+webtest.IDStr(tk.ID)))
		if diff := cmp.Diff(before, after); diff != "" || after["state"] != "queued" {
			t.Errorf("a late exit changed the lost task (state %v) (-before +after):\n%s", after["state"], diff)
		}
	})
}
