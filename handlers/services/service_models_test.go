package services_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/agent"
	"kashi/agent/simgpu"
	"kashi/models"
	"kashi/web/webtest"
)

// fakeVLLM is a model server's metrics page with a known distribution: a vLLM page of model
// "qwen2.5-7b" whose time-to-first-token histogram has the cumulative counts given on the
// bounds 0.1, 0.5 and 1 s.
func fakeVLLM(counts [4]int, tokens int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := counts[3]
		fmt.Fprintf(w, `# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="qwen2.5-7b",finished_reason="stop"} %d
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="qwen2.5-7b"} %d
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="qwen2.5-7b",le="0.1"} %d
vllm:time_to_first_token_seconds_bucket{model_name="qwen2.5-7b",le="0.5"} %d
vllm:time_to_first_token_seconds_bucket{model_name="qwen2.5-7b",le="1.0"} %d
vllm:time_to_first_token_seconds_bucket{model_name="qwen2.5-7b",le="+Inf"} %d
vllm:time_to_first_token_seconds_sum{model_name="qwen2.5-7b"} 3.0
vllm:time_to_first_token_seconds_count{model_name="qwen2.5-7b"} %d
`, n, tokens, counts[0], counts[1], counts[2], n, n)
	})
}

// listenPair listens on two consecutive loopback ports, for a service of two replicas.
func listenPair(t *testing.T) [2]net.Listener {
	t.Helper()
	for range 20 {
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		b, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", a.Addr().(*net.TCPAddr).Port+1))
		if err == nil {
			return [2]net.Listener{a, b}
		}
		a.Close()
	}
	t.Fatal("no two consecutive free ports")
	return [2]net.Listener{}
}

// TestServiceEndToEnd submits a service of two replicas through the API; the scheduler
// places both; a real agent (on a simulated node) scrapes each replica's fake vLLM page over
// HTTP and sends the counts through the samples API; the service's rollup holds both
// replicas' buckets added; and the Models page shows the percentiles, rate and cost worked
// out by hand.
func TestServiceEndToEnd(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision")
	member := s.Member("mia", "vision")
	if err := s.Store.SetPrice(ctx, models.Price{Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1000}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	// Replica A: 8 requests, TTFT cumulative 2, 6, 8 at 0.1, 0.5, 1 s; replica B: 4 requests,
	// 1, 3, 4. Merged:
	// 3, 9, 12 of 12 requests, 1,600,000 + 400,000 output tokens.
	ls := listenPair(t)
	for i, h := range []http.Handler{fakeVLLM([4]int{2, 6, 8, 8}, 1_600_000), fakeVLLM([4]int{1, 3, 4, 4}, 400_000)} {
		srv := &httptest.Server{Listener: ls[i], Config: &http.Server{Handler: h}}
		srv.Start()
		defer srv.Close()
	}
	port := ls[0].Addr().(*net.TCPAddr).Port

	api := httptest.NewServer(s.E)
	defer api.Close()
	start := time.Now()
	clock := func() time.Time { return webtest.T0.Add(time.Since(start)) } // the server's t0, running
	backend := simgpu.New(simgpu.A100_80G, 2, clock, 1)
	a := agent.New(agent.Config{Server: api.URL, JoinToken: webtest.JoinToken, Pool: "a100", Hostname: "gpu-1",
		SampleInterval: 20 * time.Millisecond, PollInterval: 20 * time.Millisecond, StopGrace: time.Second,
		Now:    clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, backend, backend.Runner())
	actx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(actx) }()
	defer func() { stop(); <-done }()
	waitUntil(t, "the node registers", func() bool { n, _ := s.Store.Nodes(ctx); return len(n) == 1 })

	w := s.Post("/api/v1/tasks", fmt.Sprintf(`{"project": "vision", "name": "chat", "gpus": 1, "spec": %q,
		"command": ["kashi-sim", "--shape=serve", "--duration=720h"], "kind": "service", "model": "qwen2.5-7b",
		"replicas": 2, "metrics_port": %d, "data_ready": true}`, webtest.A100Spec, port), webtest.Bearer(member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit = %d %s", w.Code, w.Body)
	}
	first := webtest.Decode[struct{ ID int64 }](t, w).ID
	if _, err := s.Sched.Loop.RunOnce(ctx, webtest.T0); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "both replicas' pages in the service's rollup", func() bool {
		rows, err := s.Store.ServiceRollups(ctx, []int64{first}, webtest.T0.Add(-time.Hour), webtest.T0.Add(time.Hour))
		return err == nil && len(rows) == 1 && rows[0].Requests == 12
	})

	// An hour after the start the page's last hour holds both cards for the whole hour.
	s.SetNow(webtest.T0.Add(time.Hour))
	page := func(token string) *goquery.Selection {
		w := s.Get("/models?range=1h", webtest.Bearer(token)...)
		if w.Code != http.StatusOK {
			t.Fatalf("GET /models = %d %s", w.Code, w.Body)
		}
		doc, err := goquery.NewDocumentFromReader(w.Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc.Find(fmt.Sprintf(`[data-testid="service"][data-service="%d"]`, first))
	}
	row := page(member)
	// TTFT from the merged buckets 3, 9, 12 (of 12): p50's rank 6 lies 3/6 into (0.1, 0.5]:
	// 0.3 s; p95's rank 11.4 lies 2.4/3 into (0.5, 1]: 0.9 s; p99's 11.88: 0.98 s. 12
	// requests and 2,000,000 tokens over the hour: 0.00 and 555.6 a second. Two cards for an
	// hour at ¥10 a card-hour: ¥20.00, or ¥10.00 per million output tokens. The requests
	// came in the first 5-minute window; the cards were idle the other 55 minutes: 1.83 h.
	want := map[string]string{"service-idle-hours": "1.83", "ttft-p50": "300 ms", "ttft-p95": "900 ms", "ttft-p99": "980 ms", "service-replicas": "2/2",
		"service-rps": "0.00", "service-tps": "555.6", "service-cost": "¥20.00", "service-cost-mtok": "¥10.00",
		"service-model": "qwen2.5-7b"}
	for id, text := range want {
		if got := strings.TrimSpace(row.Find(fmt.Sprintf(`[data-testid=%q]`, id)).Text()); got != text {
			t.Errorf("Models page %s = %q, want %q", id, got, text)
		}
	}
	// The charts over time: twelve 5-minute points, the requests all in the first, whose
	// 2 cards × 300 s at ¥10 a card-hour cost ¥1.67 for 2,000,000 tokens: ¥0.84 per million.
	trends := page(member).Parents().Last().Find(fmt.Sprintf(`[data-testid="service-trends"][data-service="%d"]`, first))
	for id, want := range map[string]string{"trend-ttft": "900 ms", "trend-cost": "¥0.84"} {
		dots := trends.Find(fmt.Sprintf(`[data-testid=%q] [data-testid="trend-dot"]`, id))
		if dots.Length() != 1 || !strings.HasSuffix(dots.Text(), " · "+want) {
			t.Errorf("%s dots = %d %q, want one at %s", id, dots.Length(), dots.Text(), want)
		}
	}
	// The API answers the same figures, the charts' points too.
	w = s.Get("/api/v1/services?range=1h", webtest.Bearer(member)...)
	type point struct {
		TTFTP95S       *float64 `json:"ttft_p95_s"`
		CostPerMTokFen *int64   `json:"cost_per_mtok_fen"`
	}
	type line struct {
		ID             int64    `json:"id"`
		TTFTP99S       *float64 `json:"ttft_p99_s"`
		CostPerMTokFen *int64   `json:"cost_per_mtok_fen"`
		Points         []point  `json:"points"`
	}
	got := webtest.Decode[[]line](t, w)
	if len(got) != 1 || got[0].ID != first || got[0].TTFTP99S == nil || math.Abs(*got[0].TTFTP99S-0.98) > 1e-9 ||
		got[0].CostPerMTokFen == nil || *got[0].CostPerMTokFen != 1000 {
		t.Fatalf("GET /api/v1/services = %s, want service %d with TTFT p99 0.98 s and 1,000 fen per million tokens", w.Body, first)
	}
	if ps := got[0].Points; len(ps) != 12 || ps[0].TTFTP95S == nil || math.Abs(*ps[0].TTFTP95S-0.9) > 1e-9 ||
		ps[0].CostPerMTokFen == nil || *ps[0].CostPerMTokFen != 84 || ps[1].TTFTP95S != nil || ps[1].CostPerMTokFen != nil {
		t.Errorf("GET /api/v1/services points = %s, want twelve, the first at 0.9 s and 84 fen per million tokens, the rest empty", w.Body)
	}
	// The month's bill has the service's line per model: two cards for the hour, ¥20.00; the
	// week's report has its row, priced the same.
	type billModels struct {
		Models []struct {
			ServiceID int64  `json:"service_id"`
			Model     string `json:"model"`
			NominalS  int64  `json:"nominal_s"`
			AmountFen int64  `json:"amount_fen"`
		} `json:"models"`
	}
	if b := webtest.Decode[billModels](t, s.Get("/api/v1/bills/vision/2026-03", webtest.Bearer(member)...)); len(b.Models) != 1 ||
		b.Models[0].ServiceID != first || b.Models[0].Model != "qwen2.5-7b" || b.Models[0].NominalS != 7200 || b.Models[0].AmountFen != 2000 {
		t.Errorf("bill's models = %+v, want service %d's qwen2.5-7b: 7,200 card-seconds, 2,000 fen", b.Models, first)
	}
	w = s.Get("/reports?week=2026-W10", webtest.Bearer(member)...)
	doc, err := goquery.NewDocumentFromReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	usage := doc.Find(fmt.Sprintf(`[data-testid="model-usage"][data-service="%d"]`, first))
	if tag, cost := usage.Find(`[data-testid="model-usage-tag"]`).Text(), strings.TrimSpace(usage.Find(`[data-testid="model-usage-cost"]`).Text()); tag != "qwen2.5-7b" || cost != "¥20.00" {
		t.Errorf("weekly report's model row = %q %q, want qwen2.5-7b at ¥20.00", tag, cost)
	}
	// A viewer sees the service but not what it costs.
	viewer := s.UserToken("vic", models.RoleViewer)
	if got := strings.TrimSpace(page(viewer).Find(`[data-testid="service-cost"]`).Text()); got != "—" {
		t.Errorf("viewer's cost = %q, want —", got)
	}
	// Its cost chart says why it is empty: not "no request in the range", which the TTFT chart
	// beside it contradicts.
	for lang, want := range map[string]string{"en": "Costs show to the project's members, finance and admins", "zh-CN": "成本仅对项目成员、财务和管理员显示"} {
		doc, err := goquery.NewDocumentFromReader(s.Get("/models?range=1h", append(webtest.Bearer(viewer), "Accept-Language", lang)...).Body)
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.Find(`[data-testid=trend-cost] [data-testid=trend-none]`).Text(); got != want {
			t.Errorf("%s: the viewer's cost chart says %q, want %q", lang, got, want)
		}
		if got := doc.Find(`[data-testid="service-cost"]`).AttrOr("title", ""); got != want {
			t.Errorf("%s: the viewer's cost cell's title = %q, want %q", lang, got, want)
		}
		if doc.Find(`[data-testid=trend-ttft] [data-testid=trend-dot]`).Length() == 0 {
			t.Errorf("%s: the viewer's TTFT chart has no point", lang)
		}
	}
}

// waitUntil polls cond until it holds or 10 s have passed.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s", what)
		}
	}
}
