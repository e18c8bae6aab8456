package tasks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// threeStages is clean → train → eval, the first writing where the second reads.
const threeStages = `{"project":"vision","name":"nightly","stages":[
	{"name":"eval","after":["train"],"gpus":1,"command":["eval"]},
	{"name":"train","after":["clean"],"gpus":2,"spec":"A100-80G","command":["train"],"est_gpu_hours":4},
	{"name":"clean","gpus":1,"command":["clean"],"output":"s3://bucket/clean","est_gpu_hours":1}]}`

// pipelineServer is a server with a two-card A100 node, the projects vision and nlp, and a
// member of each.
func pipelineServer(t *testing.T) (s *webtest.Server, member, other string) {
	s = webtest.NewServer(t)
	s.Projects("vision", "nlp")
	s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	return s, s.Member("mia", "vision"), s.Member("nia", "nlp")
}

// stagesByName are a pipeline's stages by name.
func stagesByName(p api.Pipeline) map[string]api.Stage {
	out := map[string]api.Stage{}
	for _, st := range p.Stages {
		out[st.Name] = st
	}
	return out
}

// TestPipelineSubmit: a member submits a pipeline; only its first stage becomes a task,
// told where it writes, and the queue is woken; the others wait, holding nothing. Another
// project's member sees it as missing; one who runs no task of the project may not submit.
func TestPipelineSubmit(t *testing.T) {
	s, member, other := pipelineServer(t)
	w := s.Post("/api/v1/pipelines", threeStages, webtest.Bearer(member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/pipelines = %d %s, want 201", w.Code, w.Body)
	}
	p := webtest.Decode[api.Pipeline](t, w)
	st := stagesByName(p)
	if p.Owner != "mia" || p.State != api.PipelineRunning || len(p.Stages) != 3 || p.Stages[0].Name != "clean" {
		t.Fatalf("pipeline = %+v, want mia's, running, clean first", p)
	}
	if st["clean"].State != api.StageSubmitted || st["clean"].Task == nil || st["train"].State != api.StageWaiting || st["train"].Task != nil {
		t.Fatalf("stages = %+v; want clean submitted, train waiting", p.Stages)
	}
	if p.EstCardHours != 5 || s.TaskCount() != 1 || s.Sched.Triggers() == 0 {
		t.Fatalf("estimate %v, %d tasks, %d wake-ups; want 5 card-hours, 1 task, the queue woken", p.EstCardHours, s.TaskCount(), s.Sched.Triggers())
	}
	task := webtest.Decode[api.Task](t, s.Get(fmt.Sprintf("/api/v1/tasks/%d", *st["clean"].Task)))
	if task.Name != "nightly/clean" || task.State != api.StateQueued || !strings.Contains(strings.Join(task.EnvNames, " "), "KASHI_STAGE_OUTPUT") {
		t.Fatalf("clean's task = %q %s env %v; want nightly/clean queued with KASHI_STAGE_OUTPUT", task.Name, task.State, task.EnvNames)
	}
	path := fmt.Sprintf("/api/v1/pipelines/%d", p.ID)
	for name, tc := range map[string]struct {
		method, path, body, token string
		want                      int
	}{
		"the member reads":                    {"GET", path, "", member, 200},
		"the member lists":                    {"GET", "/api/v1/pipelines", "", member, 200},
		"another project's member reads: 404": {"GET", path, "", other, 404},
		"another project's member reruns":     {"POST", path + "/rerun", "", other, 404},
		"another project's member submits":    {"POST", "/api/v1/pipelines", threeStages, other, 403},
		"a running pipeline's rerun: 409":     {"POST", path + "/rerun", "", member, 409},
		"an unknown pipeline: 404":            {"GET", "/api/v1/pipelines/999", "", member, 404},
	} {
		t.Run(name, func(t *testing.T) {
			w := s.Do(webtest.Req{Method: tc.method, Path: tc.path, Body: tc.body, Hdr: webtest.Pairs(webtest.Bearer(tc.token))})
			if w.Code != tc.want {
				t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, w.Code, w.Body, tc.want)
			}
		})
	}
	if l := webtest.Decode[[]api.Pipeline](t, s.Get("/api/v1/pipelines", webtest.Bearer(other)...)); len(l) != 0 {
		t.Fatalf("another project's member lists %d pipelines, want none", len(l))
	}
}

// TestPipelineStageIsAnOrdinaryTask: a stage's task carries every field a task submitted on
// its own would: its attempts and rerun on failure, its minimums of network and storage and
// whether it may span nodes with no network between them, whether it is submitted at once
// (clean) or later from what the store kept of it (train, after clean ended).
func TestPipelineStageIsAnOrdinaryTask(t *testing.T) {
	s, member, _ := pipelineServer(t)
	p := webtest.Decode[api.Pipeline](t, s.Post("/api/v1/pipelines", `{"project":"vision","name":"fields","stages":[
		{"name":"clean","gpus":1,"command":["clean"],"max_attempts":3,"rerun_on_failure":true,"priority":"high"},
		{"name":"train","after_ended":["clean"],"gpus":2,"spec":"A100-80G","command":["train"],"max_attempts":1,
		 "min_inter_node_gbps":400,"min_storage_mbps":1000,"allow_no_interconnect":true,"queue":"long"}]}`, webtest.Bearer(member)...))
	clean := *stagesByName(p)["clean"].Task
	task := webtest.Decode[api.Task](t, s.Get(fmt.Sprintf("/api/v1/tasks/%d", clean)))
	if task.MaxAttempts != 3 || !task.RerunOnFailure || task.Priority != "high" {
		t.Fatalf("clean's task: %d attempts, rerun on failure %v, priority %s; want 3, true, high", task.MaxAttempts, task.RerunOnFailure, task.Priority)
	}
	ctx := context.Background()
	if err := s.Store.CancelTask(ctx, clean, "mia", webtest.T0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.AdvancePipelines(ctx, models.DefaultTaskLimits, webtest.T0); err != nil {
		t.Fatal(err)
	}
	train := stagesByName(webtest.Decode[api.Pipeline](t, s.Get(fmt.Sprintf("/api/v1/pipelines/%d", p.ID))))["train"]
	if train.Task == nil {
		t.Fatalf("train = %+v, want submitted once clean ended", train)
	}
	task = webtest.Decode[api.Task](t, s.Get(fmt.Sprintf("/api/v1/tasks/%d", *train.Task)))
	if task.MaxAttempts != 1 || task.RerunOnFailure || task.MinInterNodeGbps != 400 || task.MinStorageMBps != 1000 ||
		!task.AllowNoInterconnect || task.Queue != "long" || task.Spec != "A100-80G" {
		t.Fatalf("train's task = %+v; want 1 attempt, 400 Gb/s, 1,000 MB/s, allowed without interconnect, the long lane, A100", task)
	}
}

// TestPipelineRefusedNamesTheField: a bad stage is refused with 422 naming it as
// stages[i].field, the store's problems and the request's alike; nothing is stored.
func TestPipelineRefusedNamesTheField(t *testing.T) {
	s, member, _ := pipelineServer(t)
	for body, field := range map[string]string{
		`{"project":"vision","name":"p","stages":[{"name":"a","gpus":1,"command":["x"]},{"name":"b","after":["zz"],"gpus":1,"command":["x"]}]}`: "stages[1].after",
		`{"project":"vision","name":"p","stages":[{"name":"a","gpus":9,"command":["x"]}]}`:                                                      "stages[0].gpus",
		`{"project":"vision","name":"p","stages":[{"name":"a","gpus":1,"command":["x"],"bogus":1}]}`:                                            "stages[0].bogus",
		`{"project":"vision","name":"p","stages":[{"name":"a","gpus":1,"command":["x"],"template":99}]}`:                                        "",
		`{"project":"vision","name":"p","stages":[]}`:                                                                                           "stages",
	} {
		w := s.Post("/api/v1/pipelines", body, webtest.Bearer(member)...)
		e := webtest.Decode[api.Error](t, w)
		if field == "" { // an unknown template is missing, as on a task's submit
			if w.Code != http.StatusNotFound {
				t.Errorf("%s = %d %s, want 404", body, w.Code, w.Body)
			}
			continue
		}
		if w.Code/100 != 4 || e.Field != field {
			t.Errorf("%s = %d %s, want 4xx naming %s", body, w.Code, w.Body, field)
		}
	}
	if ps, _ := s.Store.Pipelines(context.Background(), nil, 10); len(ps) != 0 || s.TaskCount() != 0 {
		t.Fatalf("%d pipelines and %d tasks stored, want none", len(ps), s.TaskCount())
	}
}

// TestPipelinePage: the pipelines page lists it; its page shows each stage in its layer with
// its state, why the skipped one was skipped, the estimate and, once it failed, the rerun,
// which submits the failed stage again; in both languages.
func TestPipelinePage(t *testing.T) {
	s, member, _ := pipelineServer(t)
	p := webtest.Decode[api.Pipeline](t, s.Post("/api/v1/pipelines", threeStages, webtest.Bearer(member)...))
	clean := *stagesByName(p)["clean"].Task
	ctx := context.Background()
	if err := s.Store.CancelTask(ctx, clean, "mia", webtest.T0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.AdvancePipelines(ctx, models.DefaultTaskLimits, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en":    {"failed at stage clean", "skipped: stage clean did not succeed", "its task ended cancelled", "Rerun from the failed stage"},
		"zh-CN": {"在阶段 clean 失败", "已跳过：阶段 clean 未成功", "重跑"},
	} {
		doc := pageDoc(t, s, fmt.Sprintf("/pipelines/%d", p.ID), member, lang)
		text := doc.Text()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the page lacks %q", lang, w)
			}
		}
		layers := doc.Find(`[data-testid="pipeline-graph"] > li`)
		if layers.Length() != 3 || layers.Eq(2).Find(`[data-name="eval"]`).AttrOr("data-state", "") != api.StageSkipped {
			t.Errorf("%s: %d layers, eval %q; want 3 layers, eval skipped in the third", lang, layers.Length(),
				layers.Eq(2).Find(`[data-name="eval"]`).AttrOr("data-state", ""))
		}
		if list := pageDoc(t, s, "/pipelines", member, lang); list.Find(`[data-testid="pipeline-row"][data-name="nightly"]`).Length() != 1 {
			t.Errorf("%s: the pipelines page does not list it", lang)
		}
	}
	r := s.Form(fmt.Sprintf("/pipelines/%d/rerun", p.ID), url.Values{}, webtest.Bearer(member)...)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("rerun form = %d, want 303", r.StatusCode)
	}
	got := stagesByName(webtest.Decode[api.Pipeline](t, s.Get(fmt.Sprintf("/api/v1/pipelines/%d", p.ID))))
	if got["clean"].State != api.StageSubmitted || *got["clean"].Task == clean || got["eval"].State != api.StageWaiting {
		t.Fatalf("after the rerun: %+v; want clean submitted again as a new task, eval waiting", got)
	}
}

// pageDoc gets a page as token in lang and parses it.
func pageDoc(t *testing.T, s *webtest.Server, path, token, lang string) *goquery.Document {
	t.Helper()
	w := s.Get(path, append(webtest.Bearer(token), "Accept-Language", lang)...)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, w.Code, w.Body)
	}
	doc, err := goquery.NewDocumentFromReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestPipelineCancel: through the API, as a task's cancel, only one who runs the project's
// tasks cancels a running pipeline (another project's member sees none: 404; a read-only
// token and finance are refused: 403); its queued stage's task is cancelled, its waiting
// stages skipped, the queue woken; a second cancel and a rerun are 409. On the page, a
// running pipeline offers Cancel (with the CSRF field and a question first) to its member and
// an admin, not to a read-only token; a viewer's post and a session's post without the CSRF
// token are refused; with it the pipeline is cancelled
// and its page says so, and who, in both languages, with no Cancel or Rerun left.
func TestPipelineCancel(t *testing.T) {
	s, member, other := pipelineServer(t)
	ctx := context.Background()
	mia, err := s.Store.UserByName(ctx, "mia")
	if err != nil {
		t.Fatal(err)
	}
	readOnly, _, err := s.Store.CreateAPIToken(ctx, mia.ID, "read", models.ScopeRead, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	finance, err := s.Store.CreateUser(ctx, "fay", "pw-fay", models.RoleFinance, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	financeTok, _, _ := s.Store.CreateAPIToken(ctx, finance.ID, "t", models.ScopeWrite, webtest.T0)
	p := webtest.Decode[api.Pipeline](t, s.Post("/api/v1/pipelines", threeStages, webtest.Bearer(member)...))
	clean := *stagesByName(p)["clean"].Task
	path := fmt.Sprintf("/api/v1/pipelines/%d/cancel", p.ID)
	for name, tc := range map[string]struct {
		token string
		want  int
	}{
		"another project's member": {other, 404},
		"a read-only token":        {readOnly, 403},
		"finance":                  {financeTok, 403},
	} {
		if w := s.Post(path, "", webtest.Bearer(tc.token)...); w.Code != tc.want {
			t.Errorf("%s cancels = %d %s, want %d", name, w.Code, w.Body, tc.want)
		}
	}
	if w := s.Post("/api/v1/pipelines/999/cancel", "", webtest.Bearer(member)...); w.Code != 404 {
		t.Errorf("cancel of no pipeline = %d, want 404", w.Code)
	}
	if got, _ := s.Store.PipelineByID(ctx, p.ID); got.State != api.PipelineRunning {
		t.Fatalf("after the refused cancels the pipeline is %s, want running", got.State)
	}
	woken := s.Sched.Triggers()
	w := s.Post(path, "", webtest.Bearer(member)...)
	if w.Code != 200 {
		t.Fatalf("the member cancels = %d %s, want 200", w.Code, w.Body)
	}
	got := webtest.Decode[api.Pipeline](t, w)
	st := stagesByName(got)
	if got.State != api.PipelineCancelled || got.Reason != "cancelled mia" || st["clean"].State != api.StageFailed ||
		st["clean"].TaskState != "cancelled" || st["train"].State != api.StageSkipped || st["eval"].Reason != "cancelled mia" {
		t.Fatalf("after the cancel: %s %q, stages %+v; want cancelled by mia, clean's task cancelled, train and eval skipped", got.State, got.Reason, got.Stages)
	}
	if s.Sched.Triggers() == woken {
		t.Errorf("the cancel did not wake the queue")
	}
	if task := webtest.Decode[api.Task](t, s.Get(fmt.Sprintf("/api/v1/tasks/%d", clean))); task.State != api.StateCancelled {
		t.Errorf("clean's task is %s, want cancelled", task.State)
	}
	for _, verb := range []string{"cancel", "rerun"} {
		if w := s.Post(fmt.Sprintf("/api/v1/pipelines/%d/%s", p.ID, verb), "", webtest.Bearer(member)...); w.Code != 409 {
			t.Errorf("%s of a cancelled pipeline = %d, want 409", verb, w.Code)
		}
	}

	// The page.
	q := webtest.Decode[api.Pipeline](t, s.Post("/api/v1/pipelines", strings.Replace(threeStages, `"nightly"`, `"weekly"`, 1), webtest.Bearer(member)...))
	page := fmt.Sprintf("/pipelines/%d", q.ID)
	for lang, want := range map[string]string{"en": "Cancel pipeline weekly?", "zh-CN": "取消流水线 weekly？"} {
		form := pageDoc(t, s, page, member, lang).Find(`form[data-testid="pipeline-cancel"]`)
		if form.Find(`input[name=_csrf]`).Length() != 1 || !strings.HasPrefix(form.AttrOr("data-confirm", ""), want) ||
			form.AttrOr("action", "") != page+"/cancel" {
			t.Errorf("%s: the cancel form %q asks %q; want one posting to %s/cancel with the CSRF field, asking %q",
				lang, form.AttrOr("action", ""), form.AttrOr("data-confirm", ""), page, want)
		}
	}
	admin := webtest.AdminToken(t, s.Store)
	if n := pageDoc(t, s, page, admin, "en").Find(`[data-testid="pipeline-cancel"]`).Length(); n != 1 {
		t.Errorf("an admin sees %d cancel forms, want 1", n)
	}
	if _, err := s.Store.CreateUser(ctx, "vic", "pw-vic", models.RoleViewer, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if n := pageDoc(t, s, page, readOnly, "en").Find(`[data-testid="pipeline-cancel"]`).Length(); n != 0 {
		t.Errorf("the member's read-only token sees %d cancel forms, want none", n)
	}
	if w := s.LogIn("vic", "pw-vic", "10.0.0.8").Form(page+"/cancel", nil); w.Code != http.StatusForbidden {
		t.Errorf("a viewer's cancel = %d, want 403", w.Code)
	}
	login := s.Login("mia", "pw-mia", "10.0.0.9")
	req := httptest.NewRequest(http.MethodPost, page+"/cancel", strings.NewReader(""))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range login.Result().Cookies() {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	s.E.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a session's cancel without the CSRF token = %d, want 403", rec.Code)
	}
	if got, _ := s.Store.PipelineByID(ctx, q.ID); got.State != api.PipelineRunning {
		t.Fatalf("after the refused posts the pipeline is %s, want running", got.State)
	}
	if w := s.LogIn("mia", "pw-mia", "10.0.0.9").Form(page+"/cancel", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != page+"?notice=cancelled" {
		t.Fatalf("the member's cancel form = %d to %q, want 303 to %s?notice=cancelled", w.Code, w.Header().Get("Location"), page)
	}
	for lang, want := range map[string][]string{
		"en":    {"Pipeline cancelled", "cancelled by mia", "skipped: mia cancelled the pipeline", "its task ended cancelled"},
		"zh-CN": {"流水线已取消", "由 mia 取消", "已跳过：mia 取消了流水线"},
	} {
		doc := pageDoc(t, s, page+"?notice=cancelled", member, lang)
		for _, w := range want {
			if !strings.Contains(doc.Text(), w) {
				t.Errorf("%s: the cancelled pipeline's page lacks %q", lang, w)
			}
		}
		if n := doc.Find(`[data-testid="pipeline-cancel"], [data-testid="pipeline-rerun"]`).Length(); n != 0 {
			t.Errorf("%s: a cancelled pipeline's page offers %d cancel or rerun forms, want none", lang, n)
		}
		if list := pageDoc(t, s, "/pipelines", member, lang); !strings.Contains(list.Find(`[data-testid="pipeline-row"][data-name="weekly"]`).Text(),
			map[string]string{"en": "cancelled", "zh-CN": "已取消"}[lang]) {
			t.Errorf("%s: the pipelines page does not show it cancelled", lang)
		}
	}
}
