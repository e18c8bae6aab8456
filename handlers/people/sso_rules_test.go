package people_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestSSORulesPage: an admin sees the configured rule (not deletable) and the stored one (with
// its delete button) in both languages, adds a rule, is told which field a bad one gets
// wrong (422), and deletes one; finance may neither see nor change it.
func TestSSORulesPage(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	srv, _ := oidcWorld(t, s, false)
	admin := srv.LogIn("tester", "pw-tester", "10.0.1.1")
	for lang, want := range map[string][]string{
		"en":    {"Sign-in mapping", "project member of recsys", "admin", "configuration file"},
		"zh-CN": {"登录映射", "项目成员（recsys）", "管理员", "配置文件"},
	} {
		admin.SetCookie("kashi_lang", lang)
		w := admin.Get("/people/sso")
		doc := webtest.Parse(t, w.Body.String())
		text := strings.Join(strings.Fields(doc.Find("main").Text()), " ")
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("%s: the page lacks %q: %s", lang, s, text)
			}
		}
		if n := doc.Find(`[data-testid=sso-rule]`).Length(); n != 2 {
			t.Errorf("%s: %d rules shown, want 2", lang, n)
		}
		if n := doc.Find(`[data-testid=sso-delete]`).Length(); n != 1 {
			t.Errorf("%s: %d delete buttons, want 1 (the configured rule has none)", lang, n)
		}
	}
	admin.SetCookie("kashi_lang", "en")
	w := admin.Form("/people/sso", url.Values{"method": {"oidc"}, "group": {"ml-leads"}, "role": {"lead"}})
	if w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a lead rule without a project = %d, want 422", w.Code)
	}
	if got := webtest.Parse(t, w.Body.String()).Find(`select[name=project][aria-invalid=true]`).Length(); got != 1 {
		t.Errorf("the refused form does not mark the project: %s", w.Body)
	}
	if w := admin.Form("/people/sso", url.Values{"method": {"oidc"}, "group": {"ml-leads"}, "project": {"recsys"}, "role": {"lead"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("adding a rule = %d", w.Code)
	}
	rules, _ := s.SSORules(t.Context())
	if len(rules) != 2 {
		t.Fatalf("stored rules = %+v, want 2", rules)
	}
	if w := admin.Form("/people/sso/"+strconv.FormatInt(rules[0].ID, 10)+"/delete", nil); w.Code != http.StatusSeeOther {
		t.Errorf("deleting a rule = %d", w.Code)
	}
	if w := admin.Form("/people/sso/999999/delete", nil); w.Code != http.StatusNotFound {
		t.Errorf("deleting an unknown rule = %d, want 404", w.Code)
	}
	if _, err := s.CreateUser(t.Context(), "finn", "pw-finn", models.RoleFinance, webtest.T0); err != nil {
		t.Fatal(err)
	}
	finance := srv.LogIn("finn", "pw-finn", "10.0.1.2")
	if w := finance.Get("/people/sso"); w.Code != http.StatusForbidden {
		t.Errorf("the page for finance = %d, want 403", w.Code)
	}
	if w := finance.Form("/people/sso", url.Values{"method": {"oidc"}, "group": {"g"}, "role": {"admin"}}); w.Code != http.StatusForbidden {
		t.Errorf("finance adding a rule = %d, want 403", w.Code)
	}
}
