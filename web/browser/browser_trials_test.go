package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserTrials opens the trials page, a finished trial's page and the queue page with
// its link to the trials in headless Chromium, in both languages at 1600 px and on a 390 px
// phone: every row, its proposal and the links fit the width (no page scrolls sideways).
func TestBrowserTrials(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	s.Projects("vision")
	nodes := map[string]webtest.Registered{
		"A100-80G":    s.Register(webtest.Node("gpu-07").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)),
		"RTX4090-24G": s.Register(webtest.Node("rtx-02").InPool("4090").Cards("NVIDIA GeForce RTX 4090", 24564, 4)),
	}
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.Store.SetPrice(context.Background(), models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, webtest.T0.Add(-6*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	base := s.Create(webtest.Task("finetune-7b-with-a-rather-long-name").Spec("A100-80G").Ready(), webtest.T0.Add(-5*time.Hour))
	start := func(specs string) int64 {
		w := s.Post("/api/v1/trials", fmt.Sprintf(`{"from_task":%d,"specs":[%s],"sizes":[1,2],"bound_s":1200,"work_units":50000000,"full_gpus":8}`, base.ID, specs))
		if w.Code != 201 {
			t.Fatalf("POST /api/v1/trials = %d %s", w.Code, w.Body)
		}
		return webtest.Decode[struct{ ID int64 }](t, w).ID
	}
	done := start(`"A100-80G","RTX4090-24G"`)
	runs, err := s.Store.TrialRuns(context.Background(), done)
	if err != nil {
		t.Fatal(err)
	}
	at, used := webtest.T0.Add(-2*time.Hour), map[string]int{}
	for _, r := range runs {
		host := map[string]string{"A100-80G": "gpu-07", "RTX4090-24G": "rtx-02"}[r.Spec]
		var uuids []string
		for range r.GPUs {
			uuids = append(uuids, webtest.UUIDOf(host, used[host]))
			used[host]++
		}
		s.Place(r.Task, at, uuids...)
		rate := map[string]int64{"A100-80G": 400, "RTX4090-24G": 180}[r.Spec] * int64(r.GPUs)
		end := at.Add(20 * time.Minute)
		rep := models.TaskReport{State: models.ReportExited, TS: end, ExitCode: 143, OutputUnits: rate * 1200, OutputUnit: "samples"}
		if err := s.Store.ReportTaskStatus(context.Background(), nodes[r.Spec].ID, r.ID, rep, end); err != nil {
			t.Fatal(err)
		}
	}
	start(`"A100-80G"`)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "trials", []shotPage{
		{"list", "/trials", `[data-testid=trial-row]`},
		{"trial", fmt.Sprintf("/trials/%d", done), `[data-testid=trial-proposal-text]`},
		{"queue", "/queue", `[data-testid=trials-link]`},
	})
}
