package agent_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/agent/simgpu"
	"kashi/api"
	"kashi/web/webtest"
)

// queueEntry is the task's entry in GET /api/v1/queue in the language lang asks.
func queueEntry(t *testing.T, s *webtest.Server, id int64, lang string) api.QueueEntry {
	t.Helper()
	q := webtest.Decode[api.Queue](t, s.Get("/api/v1/queue", "Accept-Language", lang))
	for _, e := range q.Tasks {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("task %d is not in the queue", id)
	return api.QueueEntry{}
}

// TestMultiNodeRefusedWithoutInterconnect: through the HTTP API, with real agents on
// simulated 8-card nodes and the real scheduler, a 16-card task on the RTX 4090 pool, whose
// admin states it has no network between nodes, waits naming that (typed code, and the
// sentence in both languages) while every card it asks is free; the same task allowed to run
// without one runs across both nodes, and on the A100 pool, stated to have 4×200 Gb/s RoCE,
// a 16-card task runs at once, while one asking 1,000 Gb/s waits naming the bandwidth. The
// queue's capacity shows what each pool states. On SQLite and Postgres.
func TestMultiNodeRefusedWithoutInterconnect(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		s.Projects("vision")
		f := newFleet(t, s, simNode{"r1", "rtx4090", simgpu.RTX4090_24G, 8}, simNode{"r2", "rtx4090", simgpu.RTX4090_24G, 8},
			simNode{"a1", "a100", simgpu.A100_80G, 8}, simNode{"a2", "a100", simgpu.A100_80G, 8})
		for name, cfg := range map[string]string{
			"rtx4090": `{"provider":"static","spec":"RTX4090-24G","gpus_per_node":8,"intra_node_link":"pcie","inter_node_link":"none","local_storage_mbps":2000}`,
			"a100": `{"provider":"static","spec":"A100-80G","gpus_per_node":8,"intra_node_link":"nvlink","intra_node_gbytes_s":600,
				"inter_node_link":"roce","inter_node_ports":4,"inter_node_port_gbps":200,"shared_storage_mbps":2000}`,
		} {
			if w := s.Post("/api/v1/pools/"+name, cfg); w.Code != 200 {
				t.Fatalf("POST /api/v1/pools/%s = %d %s", name, w.Code, w.Body)
			}
		}
		submit := func(name, spec, extra string) int64 {
			cmd, _ := json.Marshal(simgpu.Command(simgpu.Train, 2*time.Hour, 0))
			w := s.Post("/api/v1/tasks", fmt.Sprintf(`{"project":"vision","name":%q,"gpus":16,"spec":%q,"command":%s,"data_ready":true%s}`,
				name, spec, cmd, extra))
			if w.Code != 201 {
				t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
			}
			return webtest.Decode[api.Task](t, w).ID
		}

		refused := submit("rtx-16", "RTX4090-24G", "")
		f.tick()
		f.tick()
		e := queueEntry(t, s, refused, "en")
		if e.State != api.StateQueued || e.Reason != api.ReasonNoSuitablePlace || e.ReasonDetail != "no-interconnect" ||
			!strings.Contains(e.ReasonText, "RTX4090-24G pools have no network between nodes") {
			t.Errorf("the 16-card RTX task: %s, %s/%s %q; want queued, no-suitable-place/no-interconnect naming it", e.State, e.Reason, e.ReasonDetail, e.ReasonText)
		}
		if zh := queueEntry(t, s, refused, "zh-CN"); !strings.Contains(zh.ReasonText, "节点间没有互联") {
			t.Errorf("in Chinese the reason reads %q", zh.ReasonText)
		}
		q := webtest.Decode[api.Queue](t, s.Get("/api/v1/queue"))
		stated := map[string]api.PoolAttributes{}
		for _, c := range q.Capacity {
			for _, p := range c.Pools {
				stated[c.Spec] = p
			}
			if c.Spec == "RTX4090-24G" && c.Free != 16 {
				t.Errorf("RTX capacity free %d, want 16: the task waits with every card free", c.Free)
			}
		}
		if a := stated["A100-80G"]; a.Pool != "a100" || a.InterNodeGbps != 800 || a.IntraNodeLink != "nvlink" || stated["RTX4090-24G"].InterNodeLink != "none" {
			t.Errorf("capacity's pools = %+v; want a100 with 800 Gb/s NVLink, rtx4090 with none", stated)
		}

		runsOn := func(id int64, want ...string) {
			t.Helper()
			f.tickUntil(id, "placed", 5, func(t api.TaskDetail) bool { return t.State == api.StateStarting || t.State == api.StateRunning })
			f.until("its nodes run it", func() bool { return f.task(id).State == api.StateRunning })
			if nodes := f.task(id).Attempts[0].Nodes; !slices.Equal(slices.Sorted(slices.Values(nodes)), want) {
				t.Errorf("task %d runs on %v, want %v", id, nodes, want)
			}
		}
		runsOn(submit("rtx-16-allowed", "RTX4090-24G", `,"allow_no_interconnect":true`), "r1", "r2")
		runsOn(submit("a100-16", "A100-80G", `,"min_inter_node_gbps":800`), "a1", "a2")
		tooFast := submit("a100-16-1000", "A100-80G", `,"min_inter_node_gbps":1000`)
		f.tick()
		if e := queueEntry(t, s, tooFast, "en"); e.Reason != api.ReasonNoSuitablePlace || e.ReasonDetail != "inter-node-below-minimum" ||
			!strings.Contains(e.ReasonText, "1,000 Gb/s") {
			t.Errorf("the task asking 1,000 Gb/s: %s/%s %q; want no-suitable-place/inter-node-below-minimum", e.Reason, e.ReasonDetail, e.ReasonText)
		}
		if e := queueEntry(t, s, refused, "en"); e.Reason != api.ReasonNoSuitablePlace {
			t.Errorf("the refused task now waits for %s", e.Reason)
		}
	})
}
