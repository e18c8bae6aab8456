package tasks_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/web/webtest"
)

// noQuotaWorld is A100 and H800 cards whose pools refuse projects without a quota (A100)
// and let them hold 2 cards (H800); vision has an A100 quota, nlp none.
func noQuotaWorld(t *testing.T) *webtest.Server {
	t.Helper()
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision", "nlp")
	s.Register(webtest.Node("a1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	s.Register(webtest.Node("h1").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 8))
	for name, cfg := range map[string]models.PoolConfig{
		"a100": {Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 1, NoQuota: models.NoQuotaRefused},
		"h800": {Provider: "static", Spec: "H800-80G", GPUsPerNode: 8, MaxNodes: 1, NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 2},
	} {
		if _, err := s.Store.SavePoolConfig(ctx, name, cfg, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 6, BudgetCardHours: 100,
		StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(0, 1, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSubmitRefusedWithoutQuota: a submit of a spec its project has no quota on is refused
// (422) naming the field and why when the spec's pool refuses such projects or lets them
// hold fewer cards than asked, through the API, its dry run and the form (beside the specs);
// what the pool allows is accepted.
func TestSubmitRefusedWithoutQuota(t *testing.T) {
	s := noQuotaWorld(t)
	tests := map[string]struct {
		body, field, says string
	}{
		"refused spec": {`{"project":"nlp","name":"t","gpus":1,"spec":"A100-80G","command":["x"]}`, "spec",
			`project "nlp" has no quota on A100-80G, and pool "a100" refuses projects without one`},
		"past the limit": {`{"project":"nlp","name":"t","gpus":3,"spec":"H800-80G","command":["x"]}`, "gpus",
			`project "nlp" has no quota on H800-80G, and pool "h800" lets a project without one hold at most 2 cards; got 3`},
		"within the limit": {`{"project":"nlp","name":"t","gpus":2,"spec":"H800-80G","command":["x"]}`, "", ""},
		"with a quota":     {`{"project":"vision","name":"t","gpus":2,"spec":"A100-80G","command":["x"]}`, "", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/tasks?dry_run=1", "/api/v1/tasks"} {
				w := s.Post(path, tc.body)
				e := webtest.Decode[struct{ Error, Field string }](t, w)
				switch {
				case tc.field == "" && w.Code >= 400:
					t.Errorf("POST %s = %d %s, want it accepted", path, w.Code, w.Body)
				case tc.field != "" && (w.Code != http.StatusUnprocessableEntity || e.Field != tc.field || !strings.Contains(e.Error, tc.says)):
					t.Errorf("POST %s = %d %+v, want 422 on %s saying %q", path, w.Code, e, tc.field, tc.says)
				}
			}
		})
	}
	form := url.Values{"project": {"nlp"}, "name": {"t"}, "gpus": {"1"}, "specs": {"A100-80G"}, "queue": {"long"},
		"priority": {"normal"}, "command": {"python train.py"}, "data_ready": {"on"}}
	resp := s.Form("/queue/tasks", form, "HX-Request", "true")
	doc := webtest.DocOf(t, resp)
	if got := doc.Find(`[data-testid=field-error][data-field=specs]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, "refuses projects without one") {
		t.Errorf("the form's submit = %d with %q beside the specs, want 422 saying the pool refuses projects without a quota", resp.StatusCode, got)
	}
}

// TestSubmitFormSaysSpecAccess: under the spec choice, the submit form says what the chosen
// project may use of each spec, in both languages, and says it again for another project
// when the form changes (the validation's answer replaces it out of band).
func TestSubmitFormSaysSpecAccess(t *testing.T) {
	s := noQuotaWorld(t)
	rows := func(body string) map[string]string {
		out := map[string]string{}
		webtest.Parse(t, body).Find(`#spec-access [data-testid=spec-access-row]`).Each(func(_ int, e *goquery.Selection) {
			out[e.AttrOr("data-spec", "")] = e.AttrOr("data-policy", "") + " · " + strings.Join(strings.Fields(e.Text()), " ")
		})
		return out
	}
	form := url.Values{"project": {"nlp"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"}}
	for lang, want := range map[string]map[string]string{
		"en": {
			"A100-80G": "refused · A100-80G: no quota, and pool a100 refuses projects without one: not usable",
			"H800-80G": "limit · H800-80G: no quota; pool h800 lets it hold at most 2 GPUs at once, 0 in use",
		},
		"zh-CN": {
			"A100-80G": "refused · A100-80G：无配额，资源池 a100 不接受无配额的项目：不可使用",
			"H800-80G": "limit · H800-80G：无配额，资源池 h800 允许同时最多 2 张卡，在用 0",
		},
	} {
		w := s.Do(webtest.Req{Method: http.MethodPost, Path: "/queue/tasks/validate", Body: form.Encode(),
			Hdr: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true", "Accept-Language": lang}})
		got := rows(w.Body.String())
		for spec, text := range want {
			if got[spec] != text {
				t.Errorf("%s: the form says for %s %q, want %q", lang, spec, got[spec], text)
			}
		}
		if !strings.Contains(w.Body.String(), `id="spec-access"`) || !strings.Contains(w.Body.String(), `hx-swap-oob="true"`) {
			t.Errorf("%s: the validation's answer does not replace the spec access out of band", lang)
		}
	}
	form.Set("project", "vision")
	w := s.Do(webtest.Req{Method: http.MethodPost, Path: "/queue/tasks/validate", Body: form.Encode(),
		Hdr: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}})
	if got, want := rows(w.Body.String())["A100-80G"], "quota · A100-80G: its quota, 6 GPUs at once, 0 in use"; got != want {
		t.Errorf("for vision the form says %q, want %q", got, want)
	}
	// The page's form says it for the project it preselects: a member's only one.
	mia := s.Member("mia", "nlp")
	if got, want := rows(s.Get("/queue", webtest.Bearer(mia)...).Body.String())["H800-80G"],
		"limit · H800-80G: no quota; pool h800 lets it hold at most 2 GPUs at once, 0 in use"; got != want {
		t.Errorf("/queue for nlp's member says %q, want %q", got, want)
	}
}
