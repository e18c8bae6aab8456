package tasks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/schedule"
	"kashi/web/webtest"
)

// templateForm is a valid template form of a one-card evaluation asking for HF_TOKEN.
func templateForm() url.Values {
	return url.Values{"name": {"eval"}, "description": {"nightly evaluation"}, "gpus": {"1"}, "queue": {"long"},
		"priority": {"normal"}, "max_runtime_h": {"2"}, "command": {"python\neval.py"}, "env_names": {"HF_TOKEN"},
		"workdir": {"/data"}}
}

func TestTemplatePagesCreateEditSubmit(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	list := fmt.Sprintf("/projects/%d/templates", f.Vision)

	// A refused field comes back beside its input.
	bad := templateForm()
	bad.Set("gpus", "99")
	r := f.S.Form(list, bad, webtest.Bearer(f.Lead)...)
	doc := webtest.DocOf(t, r)
	if r.StatusCode != http.StatusUnprocessableEntity || strings.TrimSpace(doc.Find(`[data-testid=field-error][data-field=gpus]`).Text()) == "" {
		t.Fatalf("template form with 99 GPUs = %d, want 422 with the problem beside gpus", r.StatusCode)
	}
	if r := f.S.Form(list, templateForm(), webtest.Bearer(f.Member)...); r.StatusCode != http.StatusForbidden {
		t.Errorf("a member's template form = %d, want 403", r.StatusCode)
	}
	r = f.S.Form(list, templateForm(), webtest.Bearer(f.Lead)...)
	m := webtest.TemplateLocation.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("template form = %d → %q, want 303 to the template", r.StatusCode, r.Header.Get("Location"))
	}
	page := "/templates/" + m[1]

	// The member sees the list, without the form.
	doc = webtest.DocOf(t, f.S.Get(list, webtest.Bearer(f.Member)...).Result())
	if doc.Find(`[data-testid=template-row][data-name=eval]`).Length() != 1 || doc.Find(`[data-testid=template-create]`).Length() != 0 {
		t.Error("the member's list lacks the template, or shows the create form")
	}
	if w := f.S.Get(list, webtest.Bearer(f.NLPMem)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's member opens the list = %d, want 404", w.Code)
	}

	// A change is a new version that records who changed what.
	edit := templateForm()
	edit.Set("gpus", "2")
	if r := f.S.Form(page, edit, webtest.Bearer(f.Lead)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit = %d, want 303", r.StatusCode)
	}
	doc = webtest.DocOf(t, f.S.Get(page+"?notice=saved", webtest.Bearer(f.Member)...).Result())
	if n := doc.Find(`[data-testid=version-row]`).Length(); n != 2 {
		t.Errorf("versions = %d, want 2", n)
	}
	if got := doc.Find(`[data-testid=version-row][data-version="2"] [data-testid=change]`).AttrOr("data-field", ""); got != "gpus" {
		t.Errorf("version 2 changed %q, want gpus", got)
	}
	if doc.Find(`[data-testid=notice]`).Length() != 1 || doc.Find(`[data-testid=template-edit]`).Length() != 0 {
		t.Error("the member sees no notice, or the edit form")
	}
	href, _ := doc.Find(`[data-testid=submit-from]`).Attr("href")

	// Submit from the template: the form is filled, the env value is asked for.
	doc = webtest.DocOf(t, f.S.Get(strings.TrimSuffix(href, "#task-form"), webtest.Bearer(f.Member)...).Result())
	form := doc.Find(`[data-testid=task-form]`)
	got := map[string]string{
		"name": form.Find(`input[name=name]`).AttrOr("value", ""), "gpus": form.Find(`input[name=gpus]`).AttrOr("value", ""),
		"template": form.Find(`input[name=template]`).AttrOr("value", ""), "env": form.Find(`textarea[name=env]`).Text(),
		"command": form.Find(`textarea[name=command]`).Text(), "max_runtime_h": form.Find(`input[name=max_runtime_h]`).AttrOr("value", ""),
	}
	want := map[string]string{"name": "eval", "gpus": "2", "template": m[1], "env": "HF_TOKEN=\n", "command": "python\neval.py", "max_runtime_h": "2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("submit form from the template (-want +got):\n%s", diff)
	}
	if !strings.Contains(form.Find(`[data-testid=form-template]`).Text(), "eval") {
		t.Error("the form does not say which template it came from")
	}
	post := url.Values{"project": {"vision"}, "name": {"eval"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"},
		"max_runtime_h": {"2"}, "command": {"python\neval.py"}, "env": {"HF_TOKEN=\n"}, "template": {m[1]}, "data_ready": {"on"}}
	r = f.S.Form("/queue/tasks", post, webtest.Bearer(f.Member)...)
	doc = webtest.DocOf(t, r)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid=field-error][data-field=env]`).Text(), "HF_TOKEN") {
		t.Fatalf("submit without the env value = %d, want 422 naming HF_TOKEN beside env", r.StatusCode)
	}
	post.Set("env", "HF_TOKEN=secret\n")
	if r := f.S.Form("/queue/tasks", post, webtest.Bearer(f.Member)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("submit from the template = %d, want 303", r.StatusCode)
	}
	tasks, err := f.S.Store.Tasks(context.Background(), models.TaskFilter{Project: "vision"})
	if err != nil || len(tasks) != 1 || tasks[0].TemplateID == nil || fmt.Sprint(*tasks[0].TemplateID) != m[1] ||
		tasks[0].TemplateVersion != 2 || tasks[0].GPUs != 1 {
		t.Fatalf("tasks = %+v %v, want one of 1 GPU from the template at version 2", tasks, err)
	}
	if w := f.S.Get("/queue?template="+m[1], webtest.Bearer(f.NLPMem)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's member opens the form from the template = %d, want 404", w.Code)
	}
}

func TestSchedulePage(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	ctx := context.Background()
	// A template that asks for env values cannot be scheduled.
	withEnv := f.CreateTemplate(t)
	doc := webtest.DocOf(t, f.S.Get(fmt.Sprintf("/templates/%d", withEnv.ID), webtest.Bearer(f.Lead)...).Result())
	if doc.Find(`[data-testid=not-schedulable]`).Length() != 1 || doc.Find(`[data-testid=schedule-form]`).Length() != 0 {
		t.Error("a template with env names offers a schedule")
	}
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "nightly", "gpus": 1, "command": ["train"]}`, webtest.Bearer(f.Lead)...)
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	page := fmt.Sprintf("/templates/%d", tpl.ID)

	good := url.Values{"cron": {"0 22 * * 1-5"}, "time_zone": {"Asia/Shanghai"}, "overlap": {"skip"}, "start_deadline_min": {"60"}}
	for field, v := range map[string]url.Values{
		"cron":             {"cron": {"0 25 * * *"}, "time_zone": {"UTC"}, "overlap": {"skip"}, "start_deadline_min": {"60"}},
		"time_zone":        {"cron": {"0 22 * * 1-5"}, "time_zone": {"Mars/Base"}, "overlap": {"skip"}, "start_deadline_min": {"60"}},
		"start_deadline_s": {"cron": {"0 22 * * 1-5"}, "time_zone": {"UTC"}, "overlap": {"skip"}, "start_deadline_min": {"0"}},
		"overlap":          {"cron": {"0 22 * * 1-5"}, "time_zone": {"UTC"}, "overlap": {"both"}, "start_deadline_min": {"5"}},
	} {
		for _, path := range []string{page + "/schedules", page + "/schedules/preview"} {
			if field == "overlap" && strings.HasSuffix(path, "preview") {
				continue // the store checks the policy
			}
			r := f.S.Form(path, v, webtest.Bearer(f.Lead)...)
			doc := webtest.DocOf(t, r)
			if got := doc.Find(`[data-testid=schedule-error]`).AttrOr("data-field", ""); r.StatusCode != http.StatusUnprocessableEntity || got != field {
				t.Errorf("POST %s %v = %d naming %q, want 422 naming %s", path, v, r.StatusCode, got, field)
			}
		}
	}
	// The preview shows the next five runs in the zone: t0 is Monday 17:00 in Shanghai.
	doc = webtest.DocOf(t, f.S.Form(page+"/schedules/preview", good, webtest.Bearer(f.Lead)...))
	var next []string
	doc.Find(`[data-testid=next-run]`).Each(func(_ int, s *goquery.Selection) { next = append(next, s.Text()) })
	wantNext := []string{"2026-03-02 Mon 22:00 CST", "2026-03-03 Tue 22:00 CST", "2026-03-04 Wed 22:00 CST",
		"2026-03-05 Thu 22:00 CST", "2026-03-06 Fri 22:00 CST"}
	if diff := cmp.Diff(wantNext, next); diff != "" {
		t.Errorf("preview (-want +got):\n%s", diff)
	}
	if r := f.S.Form(page+"/schedules", good, webtest.Bearer(f.Member)...); r.StatusCode != http.StatusForbidden {
		t.Errorf("a member's schedule = %d, want 403", r.StatusCode)
	}
	if r := f.S.Form(page+"/schedules", good, webtest.Bearer(f.Lead)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("schedule form = %d, want 303", r.StatusCode)
	}
	doc = webtest.DocOf(t, f.S.Get(page, webtest.Bearer(f.Member)...).Result())
	sched := doc.Find(`[data-testid=schedule]`)
	if sched.Length() != 1 || sched.Find(`[data-testid=next-run]`).Length() != 5 || sched.Find(`[data-testid=schedule-suspend]`).Length() != 0 {
		t.Fatalf("the member's page shows %d schedules, want one with five next runs and no buttons", sched.Length())
	}
	id := sched.AttrOr("data-id", "")

	// A run that submitted a task links to it.
	n, _ := strconv.ParseInt(id, 10, 64)
	ts, _ := f.S.Store.ScheduleByID(ctx, n)
	run, claimed, err := f.S.Store.ClaimScheduleRun(ctx, ts, webtest.T0.Add(5*time.Hour), models.ScheduleRun{PlannedAt: webtest.T0.Add(5 * time.Hour), Outcome: models.RunPending}, webtest.T0.Add(5*time.Hour))
	if err != nil || !claimed {
		t.Fatalf("claim = %v %v", claimed, err)
	}
	tk := f.S.Create(webtest.Task("nightly").Of("vision"), webtest.T0.Add(5*time.Hour))
	if err := f.S.Store.FinishScheduleRun(ctx, run.ID, &tk.ID, models.RunSubmitted, "", webtest.T0.Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	doc = webtest.DocOf(t, f.S.Get(page, webtest.Bearer(f.Member)...).Result())
	if href := doc.Find(`[data-testid=schedule-run][data-outcome=submitted] [data-testid=run-task]`).AttrOr("href", ""); href != fmt.Sprintf("/tasks/%d", tk.ID) {
		t.Errorf("the run links to %q, want /tasks/%d", href, tk.ID)
	}

	// Suspend and resume.
	if r := f.S.Form("/schedules/"+id+"/suspend", nil, webtest.Bearer(f.Lead)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("suspend = %d, want 303", r.StatusCode)
	}
	doc = webtest.DocOf(t, f.S.Get(page, webtest.Bearer(f.Lead)...).Result())
	if s := doc.Find(`[data-testid=schedule]`); s.AttrOr("data-suspended", "") != "true" || s.Find(`[data-testid=next-run]`).Length() != 0 ||
		s.Find(`[data-testid=schedule-resume]`).Length() != 1 {
		t.Error("a suspended schedule shows next runs, or no resume button")
	}
	if r := f.S.Form("/schedules/"+id+"/resume", nil, webtest.Bearer(f.Lead)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("resume = %d, want 303", r.StatusCode)
	}
	if r := f.S.Form("/schedules/"+id+"/suspend", nil, webtest.Bearer(f.S.MemberAs("nel", "nlp", "lead"))...); r.StatusCode != http.StatusNotFound {
		t.Errorf("another project's lead suspends = %d, want 404", r.StatusCode)
	}
}

// TestReportByTemplate shows the week's use of each template in the weekly report and its
// CSV: the tasks from it that held cards, their card-hours and cost at the spec's price.
func TestReportByTemplate(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	vision, _ := w.Store.ProjectByName(ctx, "vision")
	tpl, err := w.Store.CreateTemplate(ctx, models.NewTemplate{ProjectID: vision.ID, Name: "nightly-eval", Body: models.TemplateBody{
		GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"eval"}}}, "lee", models.DefaultTaskLimits, webtest.Feb(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i, start := range []time.Time{webtest.Feb(13, 0), webtest.Feb(14, 0)} {
		b := webtest.Task(fmt.Sprintf("nightly-%d", i)).Of("vision").Ready()
		b.Nt.TemplateID, b.Nt.TemplateVersion = tpl.ID, 1
		w.Run(t, b, start, 2*time.Hour, 0, nil, 3)
	}
	doc := webtest.Parse(t, string(w.As("finance", "/reports?week="+webtest.ReportWeek).Body))
	row := doc.Find(fmt.Sprintf(`[data-testid=template-usage][data-template="%d"]`, tpl.ID))
	got := []string{row.Find(`[data-testid=template-runs]`).Text(), row.Find(`[data-testid=template-nominal]`).Text(),
		strings.TrimSpace(row.Find(`[data-testid=template-cost]`).Text())}
	// Two runs of 2 h on one card at ¥15 per card-hour.
	if diff := cmp.Diff([]string{"2", "4.00", "¥60.00"}, got); diff != "" {
		t.Errorf("template row (-want +got):\n%s\n%s", diff, doc.Find(`[data-testid=report-templates]`).Text())
	}
	if n := doc.Find(`[data-testid=template-usage]`).Length(); n != 1 {
		t.Errorf("template rows = %d, want 1 (tasks without a template are not listed)", n)
	}
	r := w.As("finance", "/reports.csv?week="+webtest.ReportWeek)
	if !strings.Contains(string(r.Body), "模板 template,nightly-eval,vision,,,,4.000000,0.000000,,,,,,,,2,,,,,,,60.00") {
		t.Errorf("the CSV lacks the template row:\n%s", r.Body)
	}
}

// TestScheduleOfAGoneOwnerPage: once the schedule loop suspended a schedule whose owner left
// the project, its template page says why in the viewer's language, the API names the
// reason, and the project's lead has a notification worded as such.
func TestScheduleOfAGoneOwnerPage(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	ctx := context.Background()
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "nightly", "gpus": 1, "command": ["train"]}`, webtest.Bearer(f.Lead)...)
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	mia, _ := f.S.Store.UserByName(ctx, "mia")
	ts, err := f.S.Store.CreateSchedule(ctx, models.TaskSchedule{TemplateID: tpl.ID, Cron: "* * * * *", TimeZone: "UTC",
		Overlap: "skip", StartDeadlineS: 3600, Owner: "mia"}, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.S.Store.SetMember(ctx, f.Vision, mia.ID, ""); err != nil {
		t.Fatal(err)
	}
	r := schedule.NewRunner(f.S.Store, schedule.Config{Limits: models.DefaultTaskLimits})
	if err := r.RunOnce(ctx, webtest.T0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/templates/%d", tpl.ID)
	for lang, want := range map[string]string{"en": "no longer a member", "zh-CN": "已不是本项目成员"} {
		doc := webtest.DocOf(t, f.S.Get(page, append(webtest.Bearer(f.Lead), "Accept-Language", lang)...).Result())
		why := doc.Find(`[data-testid=schedule][data-id="` + strconv.FormatInt(ts.ID, 10) + `"] [data-testid=schedule-why]`)
		if why.AttrOr("data-why", "") != models.OwnerLeft || !strings.Contains(why.Text(), want) || !strings.Contains(why.Text(), "mia") {
			t.Errorf("%s: the schedule says %q (%s), want why naming mia", lang, why.Text(), why.AttrOr("data-why", ""))
		}
	}
	got := webtest.Decode[struct {
		Schedules []struct {
			SuspendedWhy string `json:"suspended_why"`
		} `json:"schedules"`
	}](t, f.S.Get(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), webtest.Bearer(f.Lead)...))
	if len(got.Schedules) != 1 || got.Schedules[0].SuspendedWhy != models.OwnerLeft {
		t.Errorf("API schedules = %+v, want suspended_why %s", got.Schedules, models.OwnerLeft)
	}
	doc := webtest.DocOf(t, f.S.Get("/notifications", append(webtest.Bearer(f.Lead), "Accept-Language", "en")...).Result())
	if n := doc.Find(`[data-testid=notification][data-kind=schedule-suspended]`); n.Length() != 1 || !strings.Contains(n.Text(), "mia") {
		t.Errorf("the lead's notification = %q", n.Text())
	}
}
