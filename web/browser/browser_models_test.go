package browser_test

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/serving"
	"kashi/web/webtest"
)

// TestBrowserModels shows, in both languages at desktop and phone sizes, the Models page
// with its charts over time, the bill and weekly report with their model rows, and the queue
// form's service group filled to submit the service again; no page scrolls sideways on the
// phone.
func TestBrowserModels(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	ctx := t.Context()
	s.Projects("vision")
	if err := s.Store.SetPrice(ctx, models.Price{Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	n := s.Register(webtest.Node("gpu-1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	b := webtest.Task("chat").Of("vision").GPUs(1).Spec(webtest.A100Spec).Ready()
	b.Nt.Queue, b.Nt.Kind = models.QueueLong, models.TaskKindService
	b.Nt.Service = models.ServiceSpec{Model: "qwen2.5-7b-instruct", MetricsPort: 8000, HealthPath: "/health"}
	svc := s.Create(b, webtest.T0.Add(-time.Minute))
	s.Place(svc, webtest.T0, n.UUIDs[0])
	// 24 hours of traffic, busier and slower in the afternoon, none for two hours at night.
	for h := range 24 {
		if h == 3 || h == 4 {
			continue
		}
		at := webtest.T0.Add(time.Duration(h)*time.Hour + 10*time.Minute)
		load := uint64(20 + 10*(h%12))
		ttft, err := serving.NewHistogram([]float64{0.1, 0.25, 0.5, 1}, []uint64{load / 2, load * 3 / 4, load - uint64(h%5), load, load}, 0.2*float64(load))
		if err != nil {
			t.Fatal(err)
		}
		r := models.ServiceReport{TaskID: svc.ID, TS: at, Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b-instruct",
			Requests: float64(load), GenerationTokens: float64(load) * 4000, TTFT: ttft}}
		if err := s.Store.AddServiceReports(ctx, n.ID, []models.ServiceReport{r}, at); err != nil {
			t.Fatal(err)
		}
	}
	s.SetNow(webtest.T0.Add(24 * time.Hour))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	br := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(br.ctx, br.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, br, srv.URL, "models", []shotPage{
		{"models", "/models?range=24h", `[data-testid=service-trends]`},
		{"bill", "/bills/vision/2026-03", `[data-testid=bill-models]`},
		{"report", "/reports?week=2026-W10", `[data-testid=model-usage]`},
		{"resubmit", "/queue?resubmit=" + strconv.FormatInt(svc.ID, 10), `[data-testid=form-service]`},
	})
}
