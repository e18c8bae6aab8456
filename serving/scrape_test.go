package serving

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// fakeVLLM is a model server in the test: vLLM's metric names and TTFT buckets, written by
// the Prometheus Go client, with observations the test makes.
type fakeVLLM struct {
	ttft, e2e       prometheus.Observer
	success, prompt prometheus.Counter
	server          *httptest.Server
}

func newFakeVLLM(t *testing.T, model string) *fakeVLLM {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"model_name": model}
	ttft := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vllm:time_to_first_token_seconds", Help: "TTFT.",
		Buckets: []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}}, []string{"model_name"})
	e2e := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vllm:e2e_request_latency_seconds", Help: "E2E.",
		Buckets: []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60}}, []string{"model_name"})
	success := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:request_success_total", Help: "Requests."}, []string{"model_name"})
	prompt := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:prompt_tokens_total", Help: "Prompt tokens."}, []string{"model_name"})
	reg.MustRegister(ttft, e2e, success, prompt)
	f := &fakeVLLM{ttft: ttft.With(labels), e2e: e2e.With(labels), success: success.With(labels), prompt: prompt.With(labels)}
	f.server = httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(f.server.Close)
	return f
}

// serve records n requests of the same TTFT, 1.2 s end to end and 100 prompt tokens each.
func (f *fakeVLLM) serve(n int, ttft float64) {
	for range n {
		f.ttft.Observe(ttft)
		f.e2e.Observe(1.2)
		f.success.Inc()
		f.prompt.Add(100)
	}
}

// TestScrapeFakeVLLM scrapes a fake vLLM twice around a known window: 50 requests at 70 ms,
// 40 at 90 ms and 10 at 300 ms TTFT. Cumulative in the window: ≤0.08: 50, ≤0.1: 90, ≤0.25: 90,
// ≤0.5: 100, so p95 (rank 95) is 0.25 + 0.25·5/10 = 0.375 s and p50 (rank 50) is 0.08 s.
func TestScrapeFakeVLLM(t *testing.T) {
	ctx := context.Background()
	f := newFakeVLLM(t, "qwen")
	f.serve(500, 2) // before the window: slow, must not count
	prev, err := Scrape(ctx, f.server.Client(), f.server.URL)
	if err != nil {
		t.Fatal(err)
	}
	f.serve(50, 0.07)
	f.serve(40, 0.09)
	f.serve(10, 0.3)
	cur, err := Scrape(ctx, f.server.Client(), f.server.URL)
	if err != nil || len(cur) != 1 || len(prev) != 1 {
		t.Fatalf("Scrape = %+v, %v; want one snapshot", cur, err)
	}
	r := rollUp(t0, t0.Add(5*time.Minute), scrapes{prev[0], cur[0]})
	if r.Model != "qwen" || r.Server != VLLM || r.Requests != 100 || r.PromptTokens != 10000 || r.Restarts != 0 {
		t.Errorf("rollUp = %+v; want qwen on vllm, 100 requests, 10000 prompt tokens", r)
	}
	if r.TTFTP95 == nil || math.Abs(*r.TTFTP95-0.375) > 1e-9 || r.TTFTP50 == nil || math.Abs(*r.TTFTP50-0.08) > 1e-9 {
		t.Errorf("rollUp TTFT p50, p95 = %v, %v; want 0.08, 0.375", r.TTFTP50, r.TTFTP95)
	}
}

func TestScrapeRefuses(t *testing.T) {
	tests := map[string]struct {
		handler http.HandlerFunc
		ctx     func() (context.Context, context.CancelFunc)
		want    string
	}{
		"an error status": {
			handler: func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) },
			want:    "503",
		},
		"a page over the bound": {
			handler: func(w http.ResponseWriter, _ *http.Request) {
				line := "# " + strings.Repeat("x", 1<<20-3) + "\n"
				for range maxPageBytes>>20 + 1 {
					_, _ = w.Write([]byte(line))
				}
			},
			want: "larger than",
		},
		"a server that never answers, past the caller's deadline": {
			handler: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			},
			want: "deadline exceeded",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			got, err := Scrape(ctx, srv.Client(), srv.URL)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Scrape = %+v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}
