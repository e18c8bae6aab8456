package people_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/sso"
	"kashi/web/webtest"
)

// TestLDAPLoginForm signs in through the login form against OpenLDAP (scripts/test-slapd.sh;
// .ci/run starts it), with password sign-in kept for local admins: bo, whose group ml-vision
// is nested in ml, becomes a member of recsys (ml's rule), audited as an ldap sign-in; a wrong
// password is refused as a local one is; the login page says, in its language, that the form
// takes the directory's password.
func TestLDAPLoginForm(t *testing.T) {
	url := os.Getenv("KASHI_TEST_LDAP_URL")
	if url == "" {
		t.Skip("KASHI_TEST_LDAP_URL not set: start slapd with scripts/test-slapd.sh")
	}
	dir, err := sso.NewLDAP(sso.LDAPConfig{URL: url, StartTLS: true, CAFile: os.Getenv("KASHI_TEST_LDAP_CA"),
		BindDN: "cn=kashi,ou=system,dc=kashi,dc=test", BindPassword: "kashi-pw", BaseDN: "dc=kashi,dc=test",
		UserFilter: "(&(objectClass=inetOrgPerson)(uid=%s))"})
	if err != nil {
		t.Fatal(err)
	}
	s := modelstest.SQLite(t, models.Options{})
	cfg := webtest.TestCfg()
	cfg.LDAP, cfg.PasswordAdminsOnly = dir, true
	cfg.Sessions = models.SessionLimits{Idle: 1e12, Absolute: 1e12}
	rule, _ := models.ParseSSORule("ldap:ml=recsys:member")
	cfg.SSORules = []models.SSORule{rule}
	srv := webtest.NewServerOn(t, s, cfg)
	ctx := context.Background()
	recsys, _ := s.CreateProject(ctx, "tester", "recsys", nil, webtest.T0)
	for lang, want := range map[string]string{"en": "directory (LDAP) name and password", "zh-CN": "目录（LDAP）账号和密码"} {
		b := srv.Browser("10.0.2.9")
		b.SetCookie("kashi_lang", lang)
		if body := b.Get("/login").Body.String(); !strings.Contains(body, want) {
			t.Errorf("%s login page does not say the form takes a directory password (%q)", lang, want)
		}
	}
	if w := srv.Login("bo", "wrong", "10.0.2.1"); w.Code != http.StatusUnauthorized {
		t.Errorf("a wrong LDAP password = %d, want 401", w.Code)
	}
	if w := srv.Login("bo", "pw-bo", "10.0.2.2"); w.Code != http.StatusSeeOther {
		t.Fatalf("bo's LDAP sign-in = %d, want 303", w.Code)
	}
	u, err := s.UserByName(ctx, "bo")
	if err != nil || u.Source != models.SourceLDAP {
		t.Fatalf("bo = %+v, %v, want a user from ldap", u, err)
	}
	if m, _ := s.Memberships(ctx, u.ID); m[recsys.ID] != models.ProjectRoleMember {
		t.Errorf("bo's memberships = %v, want recsys", m)
	}
	log, _ := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditLogin})
	if len(log) == 0 || log[0].Actor != "bo" || !strings.Contains(log[0].After, `"method":"ldap"`) {
		t.Errorf("bo's sign-in audit = %+v, want method ldap", log)
	}
}
