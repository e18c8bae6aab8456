package simgpu

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kashi/api"
	"kashi/serving"
)

// TestModelServerPageReadsBack: the simulated vLLM page, scraped over HTTP by the serving
// package, gives back the counts observed and the hand-worked TTFT percentiles; a restart
// starts them from zero.
func TestModelServerPageReadsBack(t *testing.T) {
	m := NewModelServer("qwen2.5-7b")
	for i := range 10 {
		ttft := map[bool]float64{true: 0.03, false: 0.09}[i < 5]
		if i == 9 {
			ttft = 0.3
		}
		m.Observe(ttft, 1.2, 100, 200)
	}
	m.SetRunning(2)
	srv := httptest.NewServer(m)
	defer srv.Close()
	snaps, err := serving.Scrape(context.Background(), http.DefaultClient, srv.URL+"/metrics")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("Scrape = %+v, %v; want one model", snaps, err)
	}
	s := snaps[0]
	if s.Server != serving.VLLM || s.Model != "qwen2.5-7b" || s.Requests != 10 || s.PromptTokens != 1000 ||
		s.GenerationTokens != 2000 || s.Running != 2 || s.E2E.Count() != 10 {
		t.Errorf("page = %+v, want vllm qwen2.5-7b: 10 requests, 1000 + 2000 tokens, 2 running", s)
	}
	// Cumulative TTFT: 5 at le=0.04, 9 at le=0.1, 10 at le=0.5. The median's rank 5 ends the
	// (0.02, 0.04] bucket: 0.04. p99's rank 9.9 is 0.9 into the one request of (0.25, 0.5]:
	// 0.25 + 0.25 × 0.9 = 0.475.
	for q, want := range map[float64]float64{0.5: 0.04, 0.99: 0.475} {
		if v, ok := s.TTFT.Quantile(q); !ok || math.Abs(v-want) > 1e-9 {
			t.Errorf("TTFT p%v = %v, %v; want %v", q*100, v, ok, want)
		}
	}
	m.Restart()
	snaps, err = serving.Scrape(context.Background(), http.DefaultClient, srv.URL+"/metrics")
	if err != nil || !serving.Restarted(s, snaps[0]) || snaps[0].Requests != 0 {
		t.Errorf("after Restart: %+v, %v; want a page counting from zero", snaps, err)
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestRunnerServesASimulatedModel: a simulated service answers requests as virtual time
// passes and serves them on its metrics port, answering its health path; stopping it closes
// the page.
func TestRunnerServesASimulatedModel(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 1, clock.Now, 1)
	port := freePort(t)
	p, err := b.Runner().Start(t.Context(), api.Assignment{TaskID: 3, GPUUUIDs: uuids(b), MetricsPort: port, MetricsPath: "/metrics",
		HealthPath: "/health", Command: ServiceCommand(24*time.Hour, 5, 150*time.Millisecond)})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", port)); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health = %v, %v; want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	clock.Add(10 * time.Minute) // about 3,000 requests
	var requests float64
	for deadline := time.Now().Add(5 * time.Second); requests < 2000 && time.Now().Before(deadline); time.Sleep(checkEvery) {
		snaps, err := serving.Scrape(t.Context(), http.DefaultClient, url)
		if err != nil || len(snaps) != 1 {
			t.Fatalf("Scrape = %v, %v", snaps, err)
		}
		requests = snaps[0].Requests
	}
	if requests < 2000 || requests > 4000 {
		t.Errorf("requests after 10 virtual minutes at 5/s = %v, want about 3,000", requests)
	}
	p.Stop(0)
	if _, err := serving.Scrape(t.Context(), http.DefaultClient, url); err == nil {
		t.Errorf("Scrape after Stop = nil error, want the page gone")
	}
}
