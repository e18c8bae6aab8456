package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/api"
	"kashi/web/webtest"
)

// TestBrowserContainerSettings shows, at desktop and phone sizes, the pool form's container
// settings, the submit form refusing a task without an image for that pool, and the month's
// bills with a node's unmanaged use; no page scrolls sideways on the phone. The pool form
// hides the Kubernetes backend's settings until that backend is chosen.
func TestBrowserContainerSettings(t *testing.T) {
	t.Parallel()
	s := webtest.NewPoolServer(t)
	s.Projects("vision")
	cfg := webtest.A100Config()
	cfg.RequireImage, cfg.ContainerMounts = true, "/data:/data:ro,/scratch:/scratch"
	if _, err := s.Store.SavePoolConfig(context.Background(), "a100", cfg, "tester", "", webtest.T0); err != nil {
		t.Fatal(err)
	}
	// A notebook used a card of a100-02 for 20 s while no task held it.
	n2 := s.Register(webtest.Node("a100-02").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	s.SetNow(webtest.T0.Add(time.Minute))
	jupyter := webtest.Sample(n2.UUIDs[0], webtest.T0.Add(30*time.Second), 30, 4096)
	jupyter.Processes = []api.Process{{PID: 300, UsedMemoryMiB: 2048, Unmanaged: true, User: "bob", Command: "python -m jupyter"}}
	s.PostSamples(n2.Token, jupyter, webtest.Sample(n2.UUIDs[0], webtest.T0.Add(50*time.Second), 0, 0))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	pages := []struct{ name, path, wait string }{
		{"pool-form", "/pools/a100/edit", `[name=container_mounts]`},
		{"bills", "/bills?month=" + webtest.T0.Format("2006-01"), `main`},
	}
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		for _, p := range pages {
			err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(srv.URL+p.path),
				chromedp.WaitVisible(css(p.wait)), b.shot(fmt.Sprintf("containers-%s-%s.png", p.name, size.name)))
			if err != nil {
				t.Fatalf("%s %s: %v", size.name, p.path, err)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if width > int(size.w) {
				t.Errorf("%s %s is %d px wide, want at most %d", size.name, p.path, width, size.w)
			}
		}
		err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(srv.URL+"/queue"),
			chromedp.WaitVisible(css(`[name=image]`)),
			chromedp.SetValue(css(`[name=project]`), "vision"),
			chromedp.SendKeys(css(`[name=name]`), "bare"),
			chromedp.SendKeys(css(`[name=gpus]`), "1"),
			chromedp.Click(css(`[name=specs][value="A100-80G"]`)),
			chromedp.SendKeys(css(`[name=command]`), "python\ntrain.py"),
			// The inputs' change events validate the form in place and may already show the
			// image's error; mark this form so the wait below reads only the submit's answer, not
			// a node the answer replaces.
			chromedp.Evaluate[chromedp.Void](`document.getElementById('task-form').dataset.before = '1'`),
			chromedp.Submit(css(`[name=image]`)),
			chromedp.WaitVisible(css(`#task-form:not([data-before]) [data-testid=field-error][data-field=image]`)),
			chromedp.ScrollIntoView(css(`[name=image]`)),
			b.shot(fmt.Sprintf("containers-submit-%s.png", size.name)))
		if err != nil {
			t.Fatalf("%s submit: %v (screenshots in %s)", size.name, err, b.shots)
		}
		msg, _ := chromedp.Run(b.ctx, chromedp.Text(css(`#task-form:not([data-before]) [data-testid=field-error][data-field=image]`)))
		if !strings.Contains(msg, "is required") {
			t.Errorf("%s: the image error = %q, want the pool's refusal", size.name, msg)
		}
	}
	// The Kubernetes backend's own settings show only while that backend is chosen.
	kubeShown := func() bool {
		shown, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll('[data-backend=kubernetes]')].every(e => e.offsetParent !== null)`))
		if err != nil {
			t.Fatal(err)
		}
		return shown
	}
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/pools/a100/edit"),
		chromedp.WaitVisible(css(`[name=backend]`))); err != nil {
		t.Fatal(err)
	}
	if kubeShown() {
		t.Errorf("an agent pool's form shows the Kubernetes settings")
	}
	if err := chromedp.Do(b.ctx, chromedp.SetValue(css(`[name=backend]`), "kubernetes"), chromedp.WaitVisible(css(`[name=kubeconfig]`)),
		chromedp.ScrollIntoView(css(`[name=backend]`)), b.shot("containers-pool-form-kubernetes.png")); err != nil {
		t.Fatal(err)
	}
	if !kubeShown() {
		t.Errorf("choosing the kubernetes backend does not show its settings")
	}
	t.Logf("screenshots in %s", b.shots)
}
