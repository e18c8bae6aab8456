package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// templateFixture has projects vision and nlp, a 4-GPU node, vision's lead and member and
// nlp's member, and returns their tokens and vision's id.
type templateFixture struct {
	s                    *server
	lead, member, nlpMem string
	vision               int64
}

func newTemplateFixture(t *testing.T) templateFixture {
	s := newServer(t)
	s.projects("vision", "nlp")
	s.register(node("n1").inPool("a100").cards(a100Name, a100MiB, 4))
	p, err := s.store.ProjectByName(context.Background(), "vision")
	if err != nil {
		t.Fatal(err)
	}
	return templateFixture{s: s, lead: s.memberAs("lee", "vision", "lead"), member: s.member("mia", "vision"),
		nlpMem: s.member("nod", "nlp"), vision: p.ID}
}

// template is the JSON the tests read back.
type templateOut struct {
	ID       int64    `json:"id"`
	Version  int      `json:"version"`
	GPUs     int      `json:"gpus"`
	Uses     int64    `json:"uses"`
	EnvNames []string `json:"env_names"`
	Versions []struct {
		Version int    `json:"version"`
		By      string `json:"by"`
		Changes []struct {
			Field, Before, After string
		} `json:"changes"`
	} `json:"versions"`
	Schedules []struct {
		ID        int64       `json:"id"`
		Suspended bool        `json:"suspended"`
		Next      []time.Time `json:"next"`
	} `json:"schedules"`
}

const trainTemplate = `{"name": "train", "gpus": 1, "command": ["python", "train.py"], "env_names": ["WANDB_KEY"], "workdir": "/data"}`

func (f templateFixture) createTemplate(t *testing.T) templateOut {
	t.Helper()
	w := f.s.post(fmt.Sprintf("/api/v1/projects/%d/templates", f.vision), trainTemplate, bearer(f.lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create template = %d %s, want 201", w.Code, w.Body)
	}
	return decode[templateOut](t, w)
}

func TestTemplateAccess(t *testing.T) {
	f := newTemplateFixture(t)
	tpl := f.createTemplate(t)
	tests := map[string]struct {
		method, path, body, token string
		want                      int
	}{
		"a member lists":                        {"GET", fmt.Sprintf("/api/v1/projects/%d/templates", f.vision), "", f.member, 200},
		"a member reads":                        {"GET", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), "", f.member, 200},
		"a member may not create":               {"POST", fmt.Sprintf("/api/v1/projects/%d/templates", f.vision), `{"name": "x"}`, f.member, 403},
		"a member may not change":               {"POST", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), trainTemplate, f.member, 403},
		"a member may not schedule":             {"POST", fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), `{"cron": "@daily", "time_zone": "UTC"}`, f.member, 403},
		"another project's lead changes: 404":   {"POST", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), trainTemplate, f.s.memberAs("nel", "nlp", "lead"), 404},
		"another project's member reads: 404":   {"GET", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), "", f.nlpMem, 404},
		"another project's member lists: 404":   {"GET", fmt.Sprintf("/api/v1/projects/%d/templates", f.vision), "", f.nlpMem, 404},
		"another project's member submits: 404": {"POST", "/api/v1/tasks", fmt.Sprintf(`{"template": %d, "env": {"WANDB_KEY": "k"}}`, tpl.ID), f.nlpMem, 404},
		"unknown template: 404":                 {"GET", "/api/v1/templates/999", "", f.member, 404},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := f.s.do(req{method: tc.method, path: tc.path, body: tc.body, hdr: pairs(bearer(tc.token))})
			if w.Code != tc.want {
				t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, w.Code, w.Body, tc.want)
			}
		})
	}
}

func TestTemplateVersionsAndSubmit(t *testing.T) {
	f := newTemplateFixture(t)
	tpl := f.createTemplate(t)
	changed := `{"name": "train", "description": "bigger", "gpus": 2, "command": ["python", "train.py"], "env_names": ["WANDB_KEY"], "workdir": "/data"}`
	if w := f.s.post(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), changed, bearer(f.lead)...); w.Code != http.StatusOK {
		t.Fatalf("change template = %d %s", w.Code, w.Body)
	}
	// A member submits from the template, overriding its GPUs and giving the env value.
	body := fmt.Sprintf(`{"template": %d, "gpus": 3, "env": {"WANDB_KEY": "k"}}`, tpl.ID)
	w := f.s.post("/api/v1/tasks", body, bearer(f.member)...)
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

	got := decode[templateOut](t, f.s.get(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), bearer(f.member)...))
	if got.Version != 2 || got.Uses != 1 || len(got.Versions) != 2 || got.Versions[0].By != "lee" {
		t.Fatalf("template = %+v, want version 2 used once with two versions", got)
	}
	if diff := cmp.Diff(`[{description "" "bigger"} {gpus 1 2}]`, fmt.Sprint(got.Versions[0].Changes)); diff != "" {
		t.Errorf("version 2 changes (-want +got):\n%s", diff)
	}
}

func TestTemplateBadFields(t *testing.T) {
	f := newTemplateFixture(t)
	tpl := f.createTemplate(t)
	create := fmt.Sprintf("/api/v1/projects/%d/templates", f.vision)
	schedules := fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID)
	tests := map[string]struct {
		path, body, field string
	}{
		"too many GPUs":         {create, `{"name": "big", "gpus": 99, "command": ["x"]}`, "gpus"},
		"bad queue":             {create, `{"name": "q", "gpus": 1, "queue": "fast", "command": ["x"]}`, "queue"},
		"name taken":            {create, trainTemplate, "name"},
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
			w := f.s.post(tc.path, tc.body, bearer(f.lead)...)
			e := decode[api.Error](t, w)
			if w.Code != http.StatusUnprocessableEntity || e.Field != tc.field {
				t.Errorf("POST %s %s = %d %s, want 422 naming %s", tc.path, tc.body, w.Code, w.Body, tc.field)
			}
		})
	}
}

func TestScheduleAPI(t *testing.T) {
	f := newTemplateFixture(t)
	w := f.s.post(fmt.Sprintf("/api/v1/projects/%d/templates", f.vision), `{"name": "nightly", "gpus": 1, "command": ["train"]}`, bearer(f.lead)...)
	tpl := decode[templateOut](t, w)
	// t0 is Monday 2026-03-02 09:00 UTC, 17:00 in Shanghai.
	w = f.s.post(fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), `{"cron": "0 22 * * 1-5", "time_zone": "Asia/Shanghai", "overlap": "replace"}`, bearer(f.lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create schedule = %d %s, want 201", w.Code, w.Body)
	}
	got := decode[templateOut](t, f.s.get(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), bearer(f.member)...))
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
	if w := f.s.post(fmt.Sprintf("/api/v1/schedules/%d/suspend", id), "", bearer(f.member)...); w.Code != http.StatusForbidden {
		t.Errorf("a member suspends = %d, want 403", w.Code)
	}
	nlpLead := f.s.memberAs("nel", "nlp", "lead")
	if w := f.s.post(fmt.Sprintf("/api/v1/schedules/%d/suspend", id), "", bearer(nlpLead)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's lead suspends = %d, want 404", w.Code)
	}
	w = f.s.post(fmt.Sprintf("/api/v1/schedules/%d/suspend", id), "", bearer(f.lead)...)
	var sched struct {
		Suspended bool        `json:"suspended"`
		Next      []time.Time `json:"next"`
	}
	json.Unmarshal(w.Body.Bytes(), &sched)
	if w.Code != http.StatusOK || !sched.Suspended || len(sched.Next) != 0 {
		t.Errorf("suspend = %d %s, want suspended with no next runs", w.Code, w.Body)
	}
	w = f.s.post(fmt.Sprintf("/api/v1/schedules/%d/resume", id), "", bearer(f.lead)...)
	json.Unmarshal(w.Body.Bytes(), &sched)
	if w.Code != http.StatusOK || sched.Suspended || len(sched.Next) != 5 {
		t.Errorf("resume = %d %s, want running with five next runs", w.Code, w.Body)
	}
}
