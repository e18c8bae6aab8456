package agent_test

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"kashi/api"
	"kashi/web/webtest"
)

// BenchmarkAgentSamples measures POST /api/v1/agent/samples through the router on SQLite, as
// the load's agents send it: 64 nodes × 8 GPUs, one reading per GPU with a task's process on
// it, posted from parallel callers so that batches meet in the group commit. Each request
// authenticates the node's token and stores its batch.
func BenchmarkAgentSamples(b *testing.B) {
	const nodes, perNode = 64, 8
	s := webtest.NewServer(b)
	var fleet []webtest.Registered
	for i := range nodes {
		fleet = append(fleet, s.Register(webtest.Node(fmt.Sprintf("gpu-%02d", i)).InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, perNode)))
	}
	bodies := func(i int64) string {
		n := fleet[i%nodes]
		at := webtest.T0.Add(-time.Hour + time.Duration(i/nodes)*time.Second)
		req := api.SamplesRequest{}
		for _, uuid := range n.UUIDs {
			sm := webtest.Sample(uuid, at, 70, 4096)
			sm.Processes = []api.Process{{PID: 100, UsedMemoryMiB: 4000, TaskID: 7}}
			req.Samples = append(req.Samples, sm)
		}
		return webtest.MustJSON(b, req)
	}
	var next atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1) - 1
			w := s.Post(api.PathSamples, bodies(i), webtest.Bearer(fleet[i%nodes].Token)...)
			if w.Code != http.StatusOK {
				b.Errorf("POST %s = %d %s, want 200", api.PathSamples, w.Code, w.Body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
}
