package agent

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"kashi/api"
)

// pageServer serves a vLLM page whose request count and TTFT buckets the test sets, or an
// error status.
type pageServer struct {
	mu       sync.Mutex
	requests int
	status   int
}

func (p *pageServer) set(requests, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests, p.status = requests, status
}

func (p *pageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status != 0 {
		w.WriteHeader(p.status)
		return
	}
	n := p.requests
	// Half the requests took their first token within 0.1 s, all within 0.5 s.
	fmt.Fprintf(w, `# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="m"} %d
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m"} %d
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} %d
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.5"} %d
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} %d
vllm:time_to_first_token_seconds_sum{model_name="m"} %g
vllm:time_to_first_token_seconds_count{model_name="m"} %d
`, n, 10*n, n/2, n, n, 0.2*float64(n), n)
}

// TestRunScrapesServiceReplicas: the agent reads a service replica's metrics page every
// sample tick and sends what changed since the last reading; the sum of what it sent is what
// the server counted, across a restart of the model server; a page that fails is reported.
func TestRunScrapesServiceReplicas(t *testing.T) {
	page := &pageServer{requests: 4}
	ms := httptest.NewServer(page)
	defer ms.Close()
	u, _ := url.Parse(ms.URL)
	port, _ := strconv.Atoi(u.Port())

	f := newFakeServer(t)
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Command: []string{"serve"},
			MetricsPort: port, MetricsPath: "/metrics"}}
	})
	runAgent(t, newTestAgent(t, f, &fakeRunner{}))
	sum := func() (requests, tokens float64, restarts int, errs int) {
		for _, r := range f.serving {
			requests += r.Requests
			tokens += r.GenerationTokens
			if r.Restarted {
				restarts++
			}
			if r.Error != "" {
				errs++
			}
		}
		return
	}
	f.waitFor(t, "the page's 4 requests", func() bool { r, _, _, _ := sum(); return r == 4 })
	page.set(10, 0)
	f.waitFor(t, "10 requests in all", func() bool { r, _, _, _ := sum(); return r == 10 })
	page.set(3, 0) // the model server restarted and served 3 since
	f.waitFor(t, "13 requests in all, one restart", func() bool { r, _, n, _ := sum(); return r == 13 && n == 1 })
	page.set(3, http.StatusServiceUnavailable)
	f.waitFor(t, "a failed scrape", func() bool { _, _, _, e := sum(); return e > 0 })
	f.with(func() {
		requests, tokens, restarts, _ := sum()
		if requests != 13 || tokens != 130 || restarts != 1 {
			t.Errorf("sent %v requests, %v tokens, %d restarts; want 13, 130, 1", requests, tokens, restarts)
		}
		var ttft uint64
		for _, r := range f.serving {
			if r.TaskID != 7 {
				t.Errorf("report of task %d, want only 7's", r.TaskID)
			}
			if r.TTFT != nil {
				ttft += r.TTFT.Counts[len(r.TTFT.Counts)-1]
			}
		}
		if ttft != 13 {
			t.Errorf("TTFT observations sent = %d, want 13", ttft)
		}
	})
}
