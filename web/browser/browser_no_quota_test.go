package browser_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestBrowserNoQuota shows, in both languages at desktop and phone sizes, what a project
// without a quota may use of each spec: on its project card and under the submit form's
// spec choice (the form filled from one of its tasks), and the pool form's policy; no page
// scrolls sideways on the phone.
func TestBrowserNoQuota(t *testing.T) {
	t.Parallel()
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision", "nlp")
	s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	s.Register(webtest.Node("h800-01").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 8))
	cfg := webtest.A100Config()
	cfg.NoQuota = models.NoQuotaRefused
	if _, err := s.Store.SavePoolConfig(ctx, "a100", cfg, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SavePoolConfig(ctx, "h800", models.PoolConfig{Provider: "static", Spec: "H800-80G", GPUsPerNode: 8, MaxNodes: 1,
		NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 2}, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	done := s.Create(webtest.Task("probe").Of("nlp").Spec("H800-80G").Ready(), webtest.T0.Add(-time.Hour))

	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "no-quota", []shotPage{
		{"project", "/projects#project-2", `[data-testid=project-card][data-project=nlp] [data-testid=no-quota-spec]`},
		{"submit-form", "/queue?resubmit=" + strconv.FormatInt(done.ID, 10), `[data-testid=spec-access-row]`},
		{"pool-form", "/pools/a100/edit", `select[name=no_quota]`},
	})
}
