package simgpu

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
)

// Bucket bounds of vLLM's time-to-first-token and end-to-end latency histograms (v0.8), in
// seconds.
var (
	vllmTTFTBounds = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	vllmE2EBounds  = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60}
)

// ModelServer is a simulated vLLM server's Prometheus page: it counts the requests Observe
// is told of under vLLM's metric names and serves them over HTTP, so the agent's real scrape
// code reads it as it reads a real server. It is safe for concurrent use.
type ModelServer struct {
	model string

	mu                 sync.Mutex
	requests           uint64
	prompt, generation uint64
	running            int
	ttft, e2e          histogram
}

// histogram counts observations per bucket (not cumulative; the page writes them so).
type histogram struct {
	bounds []float64
	counts []uint64 // one more than bounds: the last is over every bound
	sum    float64
}

func newHistogram(bounds []float64) histogram {
	return histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v) // the first bound ≥ v: buckets are le
	h.counts[i]++
	h.sum += v
}

// NewModelServer returns a model server of model that has served nothing yet.
func NewModelServer(model string) *ModelServer {
	m := &ModelServer{model: model}
	m.Restart()
	return m
}

// Observe counts one finished request: its time to first token and end-to-end latency in
// seconds, and its prompt and generated tokens.
func (m *ModelServer) Observe(ttft, e2e float64, promptTokens, generatedTokens int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	m.prompt += uint64(promptTokens)
	m.generation += uint64(generatedTokens)
	m.ttft.observe(ttft)
	m.e2e.observe(e2e)
}

// SetRunning sets the requests in flight.
func (m *ModelServer) SetRunning(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running = n
}

// Restart is the server starting again: every counter back to zero.
func (m *ModelServer) Restart() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests, m.prompt, m.generation, m.running = 0, 0, 0, 0
	m.ttft, m.e2e = newHistogram(vllmTTFTBounds), newHistogram(vllmE2EBounds)
}

// ServeHTTP writes the page in the Prometheus text format, as vLLM's /metrics does.
func (m *ModelServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.WritePage(w)
}

// WritePage writes the page to w.
func (m *ModelServer) WritePage(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	label := fmt.Sprintf(`model_name=%q`, m.model)
	fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{%s} %d\n", label, m.running)
	fmt.Fprintf(w, "# TYPE vllm:request_success_total counter\nvllm:request_success_total{%s,finished_reason=\"stop\"} %d\n", label, m.requests)
	fmt.Fprintf(w, "# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{%s} %d\n", label, m.prompt)
	fmt.Fprintf(w, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{%s} %d\n", label, m.generation)
	writeHistogram(w, "vllm:time_to_first_token_seconds", label, m.ttft)
	writeHistogram(w, "vllm:e2e_request_latency_seconds", label, m.e2e)
}

func writeHistogram(w io.Writer, name, label string, h histogram) {
	fmt.Fprintf(w, "# TYPE %s histogram\n", name)
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%s,le=%q} %d\n", name, label, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{%s,le=\"+Inf\"} %d\n%s_sum{%s} %s\n%s_count{%s} %d\n",
		name, label, cum, name, label, strconv.FormatFloat(h.sum, 'g', -1, 64), name, label, cum)
}
