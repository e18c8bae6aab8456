package browser_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// TestBrowserTemplates walks a project lead's night run in headless Chromium, in English
// and Chinese: from the projects page to the project's templates, create one, submit from
// it (the form comes filled in, its two specs and region ticked, a second region ticked
// by hand), schedule it on weekday nights in Shanghai and see the next
// five runs, first as the form previews them and then on the saved schedule; change it and
// roll it back to its first version from the versions table. On a 390×844 phone the template
// pages (the rolled-back one with its rollback buttons) do not scroll sideways. Screenshots go
// to KASHI_SCREENSHOTS.
func TestBrowserTemplates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // Monday 17:00 in Shanghai
	clock := func() time.Time { return now }
	s := modelstest.SQLite(t, models.Options{})
	req := models.NodeRegistration{Hostname: "n1", Pool: "a100"}
	for i := range 4 {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("g%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	if _, err := s.RegisterNode(ctx, req, "h", now); err != nil {
		t.Fatal(err)
	}
	west := models.NodeRegistration{Hostname: "w1", Pool: "h800", GPUs: []models.GPUInfo{{UUID: "w0", Name: "NVIDIA H800", MemoryTotalMiB: 81559}}}
	if _, err := s.RegisterNode(ctx, west, "h-west", now); err != nil {
		t.Fatal(err)
	}
	for pool, pc := range map[string]models.PoolConfig{"a100": {Spec: "A100-80G", Region: "cn-east"}, "h800": {Spec: "H800-80G", Region: "cn-west"}} {
		pc.Provider, pc.GPUsPerNode, pc.MaxNodes = "static", 4, 1
		if _, err := s.SavePoolConfig(ctx, pool, pc, "tester", "", now); err != nil {
			t.Fatal(err)
		}
	}
	vision, _ := s.EnsureProject(ctx, "vision", now)
	lead, _ := s.CreateUser(ctx, "lead", "pw-lead", models.RoleUser, now)
	s.SetMember(ctx, vision.ID, lead.ID, models.ProjectRoleLead)
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: clock, NodeStaleAfter: 24 * time.Hour})
	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: 24 * time.Hour}, clock)
	srv := httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := chromedp.Do(b.ctx, b.login("lead", "pw-lead")); err != nil {
		t.Fatal(err)
	}

	for _, lang := range []string{"en", "zh-CN"} {
		name := "nightly-eval-" + lang
		err := chromedp.Do(b.ctx,
			chromedp.EmulateViewport(1280, 900),
			chromedp.Navigate(srv.URL+"/lang?set="+lang),
			chromedp.Navigate(srv.URL+"/projects"),
			chromedp.Click(css(`[data-testid=project-templates]`)),
			chromedp.WaitVisible(css(`[data-testid=template-create]`)),
			chromedp.SendKeys(css(`#t-name`), name),
			chromedp.SendKeys(css(`#t-description`), "Evaluate last night's checkpoint"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('t-gpus').value = '2'`),
			chromedp.SendKeys(css(`#t-max_runtime_h`), "3"),
			chromedp.SendKeys(css(`#t-command`), "python\neval.py\n--split=val"),
			chromedp.Click(css(`#t-specs input[value="A100-80G"]`)),
			chromedp.Click(css(`#t-specs input[value="H800-80G"]`)),
			chromedp.Click(css(`#t-regions input[value="cn-west"]`)),
			chromedp.SendKeys(css(`#t-data_locations`), "cn-west=s3://west-bucket/eval"),
			b.shot("templates-1-create-"+lang+".png"),
			chromedp.Click(css(`[data-testid=template-create-submit]`)),
			chromedp.WaitVisible(css(`[data-testid=notice]`)),
			chromedp.Click(css(`[data-testid=submit-from]`)),
			chromedp.WaitVisible(css(`[data-testid=form-template]`)),
			b.shot("templates-2-submit-form-"+lang+".png"),
			chromedp.Click(css(`#f-regions input[value="cn-east"]`)),
			chromedp.Click(css(`[data-testid=task-submit]`)),
			chromedp.WaitVisible(css(`[data-testid=form-notice]`)),
		)
		if err != nil {
			t.Fatalf("%s: create and submit: %v (screenshots in %s)", lang, err, b.shots)
		}
		tasks, err := s.Tasks(ctx, models.TaskFilter{Project: "vision"})
		if err != nil || len(tasks) == 0 || tasks[0].Name != name || tasks[0].TemplateID == nil || tasks[0].GPUs != 2 {
			t.Fatalf("%s: newest task %+v (%v), want %s from its template on 2 GPUs", lang, tasks, err, name)
		}
		// The template's two specs and region came ticked; the user ticked a second region.
		if got := fmt.Sprint(tasks[0].SpecList(), tasks[0].RegionList(), tasks[0].DataLocationMap()); got != "[A100-80G H800-80G] [cn-east cn-west] map[cn-west:s3://west-bucket/eval]" {
			t.Errorf("%s: the task accepts %s, want [A100-80G H800-80G] [cn-east cn-west] with its data in cn-west", lang, got)
		}
		err = chromedp.Do(b.ctx,
			chromedp.Navigate(fmt.Sprintf("%s/templates/%d", srv.URL, *tasks[0].TemplateID)),
			chromedp.WaitVisible(css(`[data-testid=schedule-form]`)),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('s-time_zone').value = 'Asia/Shanghai'; document.getElementById('s-cron').value = ''`),
			chromedp.SendKeys(css(`#s-cron`), "0 22 * * 1-5"),
			chromedp.WaitVisible(css(`#schedule-preview [data-testid=next-run]`)),
			b.shot("templates-3-schedule-preview-"+lang+".png"),
		)
		if err != nil {
			t.Fatalf("%s: schedule preview: %v (screenshots in %s)", lang, err, b.shots)
		}
		if n := count(`#schedule-preview [data-testid=next-run]`); n != 5 {
			t.Errorf("%s: the preview shows %d runs, want 5", lang, n)
		}
		err = chromedp.Do(b.ctx,
			chromedp.Click(css(`[data-testid=schedule-create]`)),
			chromedp.WaitVisible(css(`[data-testid=schedule] [data-testid=next-run]`)),
			b.shot("templates-4-scheduled-"+lang+".png"),
		)
		if err != nil {
			t.Fatalf("%s: schedule: %v (screenshots in %s)", lang, err, b.shots)
		}
		first, err := chromedp.Run(b.ctx, chromedp.AttributeValue(css(`[data-testid=schedule] [data-testid=next-run]`), "data-at"))
		if err != nil || first.Value != "2026-03-02T14:00:00Z" || count(`[data-testid=schedule] [data-testid=next-run]`) != 5 {
			t.Errorf("%s: first of the next runs %q (%v), want five from 2026-03-02T14:00:00Z (22:00 in Shanghai)", lang, first.Value, err)
		}
		// A change to 1 card is version 2; rolling back to version 1 saves its 2 cards as version 3.
		err = chromedp.Do(b.ctx,
			chromedp.Evaluate[chromedp.Void](`document.getElementById('t-gpus').value = '1'`),
			chromedp.Click(css(`[data-testid=template-edit-submit]`)),
			chromedp.WaitVisible(css(`[data-testid=version-row][data-version="2"]`)),
			chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), // a rollback asks first
			chromedp.Click(css(`[data-testid=version-row][data-version="1"] [data-testid=rollback]`)),
			chromedp.WaitVisible(css(`[data-testid=version-row][data-version="3"] [data-testid=restores]`)),
			b.shot("templates-5-rolled-back-"+lang+".png"),
		)
		if err != nil {
			t.Fatalf("%s: change and roll back: %v (screenshots in %s)", lang, err, b.shots)
		}
		if tpl, err := s.TemplateByID(ctx, *tasks[0].TemplateID); err != nil || tpl.Version != 3 || tpl.Fields().GPUs != 2 {
			t.Errorf("%s: template after the rollback = version %d with %d cards (%v), want version 3 with 2", lang, tpl.Version, tpl.Fields().GPUs, err)
		}
		page, _ := chromedp.Run(b.ctx, chromedp.Location())
		for _, path := range []string{strings.TrimPrefix(page, srv.URL), fmt.Sprintf("/projects/%d/templates", vision.ID),
			fmt.Sprintf("/queue?template=%d", *tasks[0].TemplateID)} {
			shot := fmt.Sprintf("templates-phone-%s%s.png", lang, strings.NewReplacer("/", "-", "?", "-", "=", "-", "#", "-").Replace(path))
			err := chromedp.Do(b.ctx,
				chromedp.EmulateViewport(390, 844),
				chromedp.Navigate(srv.URL+path),
				chromedp.WaitVisible(css(`main`)),
				b.shot(shot),
			)
			if err != nil {
				t.Fatalf("phone %s %s: %v", lang, path, err)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil || width > 390 {
				t.Errorf("phone %s %s is %d px wide (%v), want at most 390 (%s)", lang, path, width, err, shot)
			}
			// Every tick box of the specs and regions is a target a thumb can hit.
			small, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('.choice')].filter(
				c => c.getBoundingClientRect().height < 36 || c.getBoundingClientRect().right > 390).length`))
			if err != nil || small != 0 {
				t.Errorf("phone %s %s: %d tick boxes lower than 36 px or past the edge (%v)", lang, path, small, err)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
