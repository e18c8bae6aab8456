package tasks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

func TestTemplateAccess(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	tpl := f.CreateTemplate(t)
	tests := map[string]struct {
		method, path, body, token string
		want                      int
	}{
		"a member lists":                        {"GET", fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), "", f.Member, 200},
		"a member reads":                        {"GET", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), "", f.Member, 200},
		"a member may not create":               {"POST", fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "x"}`, f.Member, 403},
		"a member may not change":               {"POST", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), webtest.TrainTemplate, f.Member, 403},
		"a member may not schedule":             {"POST", fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), `{"cron": "@daily", "time_zone": "UTC"}`, f.Member, 403},
		"another project's lead changes: 404":   {"POST", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), webtest.TrainTemplate, f.S.MemberAs("nel", "nlp", "lead"), 404},
		"another project's member reads: 404":   {"GET", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), "", f.NLPMem, 404},
		"another project's member lists: 404":   {"GET", fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), "", f.NLPMem, 404},
		"another project's member submits: 404": {"POST", "/api/v1/tasks", fmt.Sprintf(`{"template": %d, "env": {"WANDB_KEY": "k"}}`, tpl.ID), f.NLPMem, 404},
		"unknown template: 404":                 {"GET", "/api/v1/templates/999", "", f.Member, 404},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := f.S.Do(webtest.Req{Method: tc.method, Path: tc.path, Body: tc.body, Hdr: webtest.Pairs(webtest.Bearer(tc.token))})
			if w.Code != tc.want {
				t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, w.Code, w.Body, tc.want)
			}
		})
	}
}

func TestTemplateVersionsAndSubmit(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	tpl := f.CreateTemplate(t)
	changed := `{"name": "train", "description": "bigger", "gpus": 2, "command": ["python", "train.py"], "env_names": ["WANDB_KEY"], "workdir": "/data"}`
	if w := f.S.Post(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), changed, webtest.Bearer(f.Lead)...); w.Code != http.StatusOK {
		t.Fatalf("change template = %d %s", w.Code, w.Body)
	}
	// A member submits from the template, overriding its GPUs and giving the env value.
	body := fmt.Sprintf(`{"template": %d, "gpus": 3, "env": {"WANDB_KEY": "k"}}`, tpl.ID)
	w := f.S.Post("/api/v1/tasks", body, webtest.Bearer(f.Member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit from template = %d %s, want 201", w.Code, w.Body)
	}
	var task struct {
		Project         string   `json:"project"`
		Name            string   `json:"name"`
		GPUs            int      `json:"gpus"`
		Command         []string `json:"command"`
		Workdir         string   `json:"workdir"`
		EnvNames        []string `json:"env_names"`
		State           string   `json:"state"`
		TemplateID      *int64   `json:"template_id"`
		TemplateVersion int      `json:"template_version"`
	}
	json.Unmarshal(w.Body.Bytes(), &task)
	id := tpl.ID
	want := struct {
		Project         string   `json:"project"`
		Name            string   `json:"name"`
		GPUs            int      `json:"gpus"`
		Command         []string `json:"command"`
		Workdir         string   `json:"workdir"`
		EnvNames        []string `json:"env_names"`
		State           string   `json:"state"`
		TemplateID      *int64   `json:"template_id"`
		TemplateVersion int      `json:"template_version"`
	}{"vision", "train", 3, []string{"python", "train.py"}, "/data", []string{"WANDB_KEY"}, "queued", &id, 2}
	if diff := cmp.Diff(want, task); diff != "" {
		t.Errorf("task from the template (-want +got):\n%s", diff)
	}

	got := webtest.Decode[webtest.TemplateOut](t, f.S.Get(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), webtest.Bearer(f.Member)...))
	if got.Version != 2 || got.Uses != 1 || len(got.Versions) != 2 || got.Versions[0].By != "lee" {
		t.Fatalf("template = %+v, want version 2 used once with two versions", got)
	}
	if diff := cmp.Diff(`[{description "" "bigger"} {gpus 1 2}]`, fmt.Sprint(got.Versions[0].Changes)); diff != "" {
		t.Errorf("version 2 changes (-want +got):\n%s", diff)
	}
}

func TestTemplateBadFields(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	tpl := f.CreateTemplate(t)
	create := fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision)
	schedules := fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID)
	tests := map[string]struct {
		path, body, field string
	}{
		"too many GPUs":         {create, `{"name": "big", "gpus": 99, "command": ["x"]}`, "gpus"},
		"bad queue":             {create, `{"name": "q", "gpus": 1, "queue": "fast", "command": ["x"]}`, "queue"},
		"name taken":            {create, webtest.TrainTemplate, "name"},
		"bad env name":          {create, `{"name": "e", "gpus": 1, "command": ["x"], "env_names": ["1X"]}`, "env_names"},
		"no env value":          {"/api/v1/tasks", fmt.Sprintf(`{"template": %d}`, tpl.ID), "env.WANDB_KEY"},
		"another project":       {"/api/v1/tasks", fmt.Sprintf(`{"template": %d, "project": "nlp", "env": {"WANDB_KEY": "k"}}`, tpl.ID), "project"},
		"override refused":      {"/api/v1/tasks", fmt.Sprintf(`{"template": %d, "gpus": 99, "env": {"WANDB_KEY": "k"}}`, tpl.ID), "gpus"},
		"bad cron":              {schedules, `{"cron": "0 25 * * *", "time_zone": "UTC"}`, "cron"},
		"bad zone":              {schedules, `{"cron": "0 22 * * 1-5", "time_zone": "Mars/Base"}`, "time_zone"},
		"bad overlap":           {schedules, `{"cron": "0 22 * * 1-5", "time_zone": "UTC", "overlap": "both"}`, "overlap"},
		"deadline out of range": {schedules, `{"cron": "0 22 * * 1-5", "time_zone": "UTC", "overlap": "skip", "start_deadline_s": 10}`, "start_deadline_s"},
		"template needs env":    {schedules, `{"cron": "0 22 * * 1-5", "time_zone": "UTC"}`, "template"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := f.S.Post(tc.path, tc.body, webtest.Bearer(f.Lead)...)
			e := webtest.Decode[api.Error](t, w)
			if w.Code != http.StatusUnprocessableEntity || e.Field != tc.field {
				t.Errorf("POST %s %s = %d %s, want 422 naming %s", tc.path, tc.body, w.Code, w.Body, tc.field)
			}
		})
	}
}

func TestScheduleAPI(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "nightly", "gpus": 1, "command": ["train"]}`, webtest.Bearer(f.Lead)...)
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	// t0 is Monday 2026-03-02 09:00 UTC, 17:00 in Shanghai.
	w = f.S.Post(fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), `{"cron": "0 22 * * 1-5", "time_zone": "Asia/Shanghai", "overlap": "replace"}`, webtest.Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create schedule = %d %s, want 201", w.Code, w.Body)
	}
	got := webtest.Decode[webtest.TemplateOut](t, f.S.Get(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), webtest.Bearer(f.Member)...))
	if len(got.Schedules) != 1 {
		t.Fatalf("schedules = %+v, want one", got.Schedules)
	}
	var next []string
	for _, n := range got.Schedules[0].Next {
		next = append(next, n.Format("2006-01-02 15:04Z"))
	}
	want := []string{"2026-03-02 14:00Z", "2026-03-03 14:00Z", "2026-03-04 14:00Z", "2026-03-05 14:00Z", "2026-03-06 14:00Z"}
	if diff := cmp.Diff(want, next); diff != "" {
		t.Errorf("next five runs (-want +got):\n%s", diff)
	}
	id := got.Schedules[0].ID
	if w := f.S.Post(fmt.Sprintf("/api/v1/schedules/%d/suspend", id), "", webtest.Bearer(f.Member)...); w.Code != http.StatusForbidden {
		t.Errorf("a member suspends = %d, want 403", w.Code)
	}
	nlpLead := f.S.MemberAs("nel", "nlp", "lead")
	if w := f.S.Post(fmt.Sprintf("/api/v1/schedules/%d/suspend", id), "", webtest.Bearer(nlpLead)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's lead suspends = %d, want 404", w.Code)
	}
	w = f.S.Post(fmt.Sprintf("/api/v1/schedules/%d/suspend", id), "", webtest.Bearer(f.Lead)...)
	var sched struct {
		Suspended bool        `json:"suspended"`
		Next      []time.Time `json:"next"`
	}
	json.Unmarshal(w.Body.Bytes(), &sched)
	if w.Code != http.StatusOK || !sched.Suspended || len(sched.Next) != 0 {
		t.Errorf("suspend = %d %s, want suspended with no next runs", w.Code, w.Body)
	}
	w = f.S.Post(fmt.Sprintf("/api/v1/schedules/%d/resume", id), "", webtest.Bearer(f.Lead)...)
	json.Unmarshal(w.Body.Bytes(), &sched)
	if w.Code != http.StatusOK || sched.Suspended || len(sched.Next) != 5 {
		t.Errorf("resume = %d %s, want running with five next runs", w.Code, w.Body)
	}
}
