package tasks_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"kashi/web/webtest"
)

// rollbackFixture is the template fixture's "train" changed twice by vision's lead: version 2
// asks 2 cards, version 3 4 cards and the high priority.
func rollbackFixture(t *testing.T) (webtest.TemplateFixture, int64) {
	t.Helper()
	f := webtest.NewTemplateFixture(t)
	tpl := f.CreateTemplate(t)
	for _, change := range []string{`"gpus": 2`, `"gpus": 4, "priority": "high"`} {
		body := strings.Replace(webtest.TrainTemplate, `"gpus": 1`, change, 1)
		if w := f.S.Post(fmt.Sprintf("/api/v1/templates/%d", tpl.ID), body, webtest.Bearer(f.Lead)...); w.Code != http.StatusOK {
			t.Fatalf("change template = %d %s", w.Code, w.Body)
		}
	}
	return f, tpl.ID
}

// TestTemplateRollbackAPI: the project's lead rolls a template back to an earlier version and
// gets a new version with its fields, which records the version it restores, and an audit
// entry; a member, another project's lead (as if the template did not exist), a version that
// is not an earlier one and a body that is not one are refused.
func TestTemplateRollbackAPI(t *testing.T) {
	f, id := rollbackFixture(t)
	nlpLead := f.S.MemberAs("nora", "nlp", "lead")
	path := fmt.Sprintf("/api/v1/templates/%d/rollback", id)
	for name, c := range map[string]struct {
		token, body string
		status      int
		field       string
	}{
		"member":                 {f.Member, `{"version": 1}`, http.StatusForbidden, ""},
		"other project's member": {f.NLPMem, `{"version": 1}`, http.StatusForbidden, ""},
		"other project's lead":   {nlpLead, `{"version": 1}`, http.StatusNotFound, ""},
		"current":                {f.Lead, `{"version": 3}`, http.StatusUnprocessableEntity, "version"},
		"later":                  {f.Lead, `{"version": 4}`, http.StatusUnprocessableEntity, "version"},
		"zero":                   {f.Lead, `{"version": 0}`, http.StatusUnprocessableEntity, "version"},
		"none":                   {f.Lead, `{}`, http.StatusUnprocessableEntity, "version"},
		"negative":               {f.Lead, `{"version": -2}`, http.StatusUnprocessableEntity, "version"},
		"not a number":           {f.Lead, `{"version": "1"}`, http.StatusBadRequest, "version"},
		"beyond int":             {f.Lead, `{"version": 1e30}`, http.StatusBadRequest, "version"},
		"unknown field":          {f.Lead, `{"version": 1, "name": "x"}`, http.StatusBadRequest, "name"},
	} {
		t.Run(name, func(t *testing.T) {
			w := f.S.Post(path, c.body, webtest.Bearer(c.token)...)
			if c.field == "" {
				if w.Code != c.status {
					t.Errorf("POST %s = %d %s, want %d", path, w.Code, w.Body, c.status)
				}
				return
			}
			webtest.WantAPIError(t, "POST "+path, w, c.status, c.field)
		})
	}
	w := f.S.Post(path, `{"version": 1}`, webtest.Bearer(f.Lead)...)
	if got := webtest.Decode[webtest.TemplateOut](t, w); w.Code != http.StatusOK || got.Version != 4 || got.GPUs != 1 {
		t.Fatalf("POST %s version 1 = %d %+v, want version 4 asking 1 card", path, w.Code, got)
	}
	shown := webtest.Decode[struct {
		Priority string `json:"priority"`
		Versions []struct {
			Version  int    `json:"version"`
			By       string `json:"by"`
			Restores int    `json:"restores"`
		} `json:"versions"`
	}](t, f.S.Get(fmt.Sprintf("/api/v1/templates/%d", id), webtest.Bearer(f.Member)...))
	if v := shown.Versions[0]; shown.Priority != "normal" || v.Version != 4 || v.By != "lee" || v.Restores != 1 || shown.Versions[1].Restores != 0 {
		t.Errorf("template after the rollback = %+v, want version 4 by lee restoring 1, normal priority", shown)
	}
	// Version 1's fields are the current ones now: nothing changes.
	if got := webtest.Decode[webtest.TemplateOut](t, f.S.Post(path, `{"version": 1}`, webtest.Bearer(f.Lead)...)); got.Version != 4 {
		t.Errorf("rolling back to the current fields again = version %d, want 4 kept", got.Version)
	}
	audit := f.S.Get("/api/v1/audit?action=template-rollback")
	if !strings.Contains(audit.Body.String(), `template train`) || strings.Count(audit.Body.String(), `"action":"template-rollback"`) != 1 {
		t.Errorf("audit = %s, want one rollback of template train", audit.Body)
	}
}

// TestTemplateRollbackPage: on the template's page the lead has a "roll back" button on every
// version but the current one (with the CSRF field), in both languages; the member has none
// and is refused; the button saves a new version and the page says which it restored; a
// version whose fields the rules now refuse comes back with why; a session's post without
// the CSRF token is refused.
func TestTemplateRollbackPage(t *testing.T) {
	f, id := rollbackFixture(t)
	page := fmt.Sprintf("/templates/%d", id)
	for lang, button := range map[string]string{"en": "Roll back to this version", "zh-CN": "回滚到此版本"} {
		doc := webtest.DocOf(t, f.S.Get(page, append(webtest.Bearer(f.Lead), "Accept-Language", lang)...).Result())
		for v, want := range map[string]int{"1": 1, "2": 1, "3": 0} {
			row := doc.Find(`[data-testid=version-row][data-version="` + v + `"]`)
			if got := row.Find(`form[action="` + page + `/rollback"] input[name=_csrf]`).Length(); got != want {
				t.Errorf("%s: version %s has %d rollback forms with a CSRF field, want %d", lang, v, got, want)
			}
			if want == 1 && (strings.TrimSpace(row.Find(`[data-testid=rollback]`).Text()) != button ||
				row.Find(`input[name=version]`).AttrOr("value", "") != v || row.Find(`form[data-confirm]`).Length() != 1) {
				t.Errorf("%s: version %s's button = %q, want %q asking first, for version %s", lang, v, row.Find(`[data-testid=rollback]`).Text(), button, v)
			}
		}
	}
	member := webtest.DocOf(t, f.S.Get(page, webtest.Bearer(f.Member)...).Result())
	if member.Find(`[data-testid=rollback]`).Length() != 0 {
		t.Error("a member sees rollback buttons")
	}
	if r := f.S.Form(page+"/rollback", url.Values{"version": {"1"}}, webtest.Bearer(f.Member)...); r.StatusCode != http.StatusForbidden {
		t.Errorf("a member's rollback = %d, want 403", r.StatusCode)
	}
	if r := f.S.Form(page+"/rollback", url.Values{"version": {"one"}}, webtest.Bearer(f.Lead)...); r.StatusCode != http.StatusBadRequest {
		t.Errorf("rollback to version \"one\" = %d, want 400", r.StatusCode)
	}
	r := f.S.Form(page+"/rollback", url.Values{"version": {"1"}}, webtest.Bearer(f.Lead)...)
	if loc := r.Header.Get("Location"); r.StatusCode != http.StatusSeeOther || loc != page+"?notice=rolled-back" {
		t.Fatalf("rollback = %d → %q, want 303 to the page with its notice", r.StatusCode, loc)
	}
	for lang, want := range map[string][2]string{
		"en":    {"Rolled back to version 1: saved as version 4.", "rolled back to version 1"},
		"zh-CN": {"已回滚到第 1 版：保存为第 4 版。", "回滚到第 1 版"},
	} {
		doc := webtest.DocOf(t, f.S.Get(page+"?notice=rolled-back", append(webtest.Bearer(f.Lead), "Accept-Language", lang)...).Result())
		if got := strings.TrimSpace(doc.Find(`[data-testid=notice]`).Text()); got != want[0] {
			t.Errorf("%s: notice = %q, want %q", lang, got, want[0])
		}
		if got := strings.TrimSpace(doc.Find(`[data-testid=version-row][data-version="4"] [data-testid=restores]`).Text()); got != want[1] {
			t.Errorf("%s: version 4 says %q, want %q", lang, got, want[1])
		}
	}
	if r := f.S.Form(page+"/rollback", url.Values{"version": {"1"}}, webtest.Bearer(f.Lead)...); r.Header.Get("Location") != page+"?notice=unchanged" {
		t.Errorf("rolling back to the current fields = %q, want the unchanged notice", r.Header.Get("Location"))
	}
	// A version whose fields the rules refuse now (a path check, on a server that no longer
	// checks paths) comes back with why, in the page's language, and nothing is saved.
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision),
		`{"name": "checked", "gpus": 1, "command": ["x"], "data_check": {"path": "/data/set/_READY"}}`, webtest.Bearer(f.Lead)...)
	checked := webtest.Decode[webtest.TemplateOut](t, w)
	if w := f.S.Post(fmt.Sprintf("/api/v1/templates/%d", checked.ID),
		`{"name": "checked", "gpus": 1, "command": ["x"], "data_check": {"url": "https://data.example.com/ready"}}`, webtest.Bearer(f.Lead)...); w.Code != http.StatusOK {
		t.Fatalf("change template = %d %s", w.Code, w.Body)
	}
	f.S.Store.SetDataRoots(nil)
	for lang, want := range map[string]string{"en": "this server checks no paths", "zh-CN": "本服务器不检查路径"} {
		r := f.S.Form(fmt.Sprintf("/templates/%d/rollback", checked.ID), url.Values{"version": {"1"}}, append(webtest.Bearer(f.Lead), "Accept-Language", lang)...)
		got := webtest.DocOf(t, r).Find(`[data-testid=rollback-error]`).Text()
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, want) {
			t.Errorf("%s: rollback to a path check = %d %q, want 422 saying %q", lang, r.StatusCode, got, want)
		}
	}
	if got := webtest.Decode[webtest.TemplateOut](t, f.S.Get(fmt.Sprintf("/api/v1/templates/%d", checked.ID))); got.Version != 2 {
		t.Errorf("after refused rollbacks the template is at version %d, want 2", got.Version)
	}

	// A session's post without the CSRF token is refused.
	login := f.S.Login("lee", "pw-lee", "10.0.0.9")
	req := httptest.NewRequest(http.MethodPost, page+"/rollback", strings.NewReader("version=2"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range login.Result().Cookies() {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	f.S.E.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a session's rollback without the CSRF token = %d, want 403", rec.Code)
	}
}
