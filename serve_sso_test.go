package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/sso"
	"kashi/sso/ssotest"
	"kashi/web/webtest"
)

// TestLDAPSyncRemovesAccess runs against OpenLDAP (scripts/test-slapd.sh; .ci/run starts
// it): a person in a group nested in the group a rule maps to recsys signs in and is a member;
// taken out of the group, the next sync (no sign-in) ends the membership; disabled in the
// directory, the next sync disables them in Kashi, ends their session and revokes their API
// token. On both databases.
func TestLDAPSyncRemovesAccess(t *testing.T) {
	url := os.Getenv("KASHI_TEST_LDAP_URL")
	if url == "" {
		t.Skip("KASHI_TEST_LDAP_URL not set: start slapd with scripts/test-slapd.sh")
	}
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		admin, err := ldap.DialURL(url)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		if err := admin.Bind("cn=admin,dc=kashi,dc=test", "admin-pw"); err != nil {
			t.Fatal(err)
		}
		var b [4]byte
		rand.Read(b[:])
		tag := hex.EncodeToString(b[:])
		user, inner, outer := "uid=u"+tag+",ou=people,dc=kashi,dc=test", "cn=in"+tag+",ou=groups,dc=kashi,dc=test", "cn=out"+tag+",ou=groups,dc=kashi,dc=test"
		add := func(dn string, attrs map[string][]string) {
			r := ldap.NewAddRequest(dn, nil)
			for k, v := range attrs {
				r.Attribute(k, v)
			}
			if err := admin.Add(r); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { admin.Del(ldap.NewDelRequest(dn, nil)) })
		}
		add(user, map[string][]string{"objectClass": {"inetOrgPerson"}, "uid": {"u" + tag}, "cn": {"u"}, "sn": {"u"}, "userPassword": {"pw"}})
		add(inner, map[string][]string{"objectClass": {"groupOfNames"}, "cn": {"in" + tag}, "member": {user}})
		add(outer, map[string][]string{"objectClass": {"groupOfNames"}, "cn": {"out" + tag}, "member": {inner}})

		dir, err := sso.NewLDAP(sso.LDAPConfig{URL: url, BindDN: "cn=kashi,ou=system,dc=kashi,dc=test", BindPassword: "kashi-pw",
			BaseDN: "dc=kashi,dc=test", UserFilter: "(&(objectClass=inetOrgPerson)(uid=%s)(!(employeeType=disabled)))"})
		if err != nil {
			t.Fatal(err)
		}
		recsys, _ := s.CreateProject(ctx, "root", "recsys", nil, now)
		rule, err := models.ParseSSORule("ldap:" + outer + "=recsys:member")
		if err != nil {
			t.Fatal(err)
		}
		rules := []models.SSORule{rule}
		id, err := dir.SignIn(ctx, "u"+tag, "pw")
		if err != nil {
			t.Fatal(err)
		}
		lim := models.SessionLimits{Idle: time.Hour, Absolute: time.Hour}
		u, session, err := s.SignInExternal(ctx, models.ExternalIdentity{Method: models.SourceLDAP, ID: id.ID, Name: id.Name, Groups: id.Groups}, rules, lim, now)
		if err != nil {
			t.Fatal(err)
		}
		token, _, err := s.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, now)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := s.Memberships(ctx, u.ID); m[recsys.ID] != models.ProjectRoleMember {
			t.Fatalf("after signing in: memberships %v, want recsys (through the nested group)", m)
		}

		mod := ldap.NewModifyRequest(inner, nil)
		mod.Delete("member", []string{user})
		mod.Add("member", []string{"uid=ana,ou=people,dc=kashi,dc=test"})
		if err := admin.Modify(mod); err != nil {
			t.Fatal(err)
		}
		if err := syncLDAP(ctx, s, dir, rules, now); err != nil {
			t.Fatal(err)
		}
		if m, _ := s.Memberships(ctx, u.ID); len(m) != 0 {
			t.Errorf("after leaving the group and a sync: memberships %v, want none", m)
		}
		if _, err := s.SessionUser(ctx, session, lim, now); err != nil {
			t.Errorf("a sync that only changed groups ended the session: %v", err)
		}

		mod = ldap.NewModifyRequest(user, nil)
		mod.Add("employeeType", []string{"disabled"})
		if err := admin.Modify(mod); err != nil {
			t.Fatal(err)
		}
		if err := syncLDAP(ctx, s, dir, rules, now); err != nil {
			t.Fatal(err)
		}
		if u, _ := s.UserByName(ctx, u.Name); !u.Disabled {
			t.Error("disabled in the directory, still enabled after a sync")
		}
		if _, err := s.SessionUser(ctx, session, lim, now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("the session after the directory disabled its user = %v, want ErrNotFound", err)
		}
		if _, _, err := s.TokenUser(ctx, token, now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("the API token after the directory disabled its user = %v, want ErrNotFound", err)
		}
		// Enabled again by an admin, the token stays revoked.
		if err := s.SetUserDisabled(ctx, "root", u.Name, false, now); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TokenUser(ctx, token, now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("the API token after re-enabling = %v, want still revoked", err)
		}
	})
}

// TestParseServeSSOFlags: the provider's secret comes from the environment (or a file) and
// the rules from their file; a provider without a client or public URL, a bad rule (named by
// its line), a bad --password-login, an LDAP URL of another scheme and a sync period out of
// range are refused before the server starts.
func TestParseServeSSOFlags(t *testing.T) {
	dir := t.TempDir()
	rules := dir + "/rules"
	os.WriteFile(rules, []byte("# groups → roles\noidc:platform=admin\n\nldap:cn=ml,ou=groups,dc=example,dc=org=recsys:lead\n"), 0o600)
	env := map[string]string{"KASHI_OIDC_CLIENT_SECRET": "s3cret"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServe([]string{"--oidc-issuer", "https://idp.example.org/realms/r", "--oidc-client-id", "kashi",
		"--public-url", "https://kashi.example.org", "--sso-rules", rules, "--password-login", "admins"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SSO.OIDCClientSecret != "s3cret" || len(cfg.SSO.Rules) != 2 || cfg.SSO.Rules[1].GroupName != "cn=ml,ou=groups,dc=example,dc=org" ||
		cfg.SSO.oidc(cfg.PublicURL) == nil || cfg.SSO.PasswordLogin != "admins" {
		t.Errorf("parsed %+v", cfg.SSO)
	}
	os.WriteFile(dir+"/bad", []byte("oidc:platform=admin\noidc:g=owner\n"), 0o600)
	for args, want := range map[string]string{
		"--oidc-issuer https://idp --public-url https://k":              "--oidc-client-id",
		"--oidc-issuer https://idp --oidc-client-id k":                  "--public-url",
		"--password-login none":                                         "--password-login",
		"--sso-rules " + dir + "/bad":                                   "line 2",
		"--ldap-url http://dc --ldap-base-dn dc=x":                      "ldap://",
		"--ldap-url ldap://dc":                                          "--ldap-base-dn",
		"--ldap-url ldap://dc --ldap-base-dn dc=x --ldap-sync-every 1s": "--ldap-sync-every",
	} {
		_, err := parseServe(strings.Fields(args), getenv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseServe(%s) = %v, want an error naming %s", args, err, want)
		}
	}
}

// TestOIDCCheckEndsDisabledUsers runs the provider's check against a real OpenID provider
// (zitadel/oidc's op): ana signs in through Kashi's routes (offline_access, so the provider
// gives a refresh token); a check renews her refresh token and applies her groups as they are
// now (she left ml: no more recsys); disabled at the provider, the next check disables her in
// Kashi, ends her session and revokes her API token; a provider that does not answer
// changes nothing. On both databases.
func TestOIDCCheckEndsDisabledUsers(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		const kashiURL = "http://kashi.test"
		op := ssotest.Start(t, []ssotest.Client{{ID: "kashi", Secret: "s-kashi", RedirectURL: kashiURL + "/login/oidc/callback"}},
			ssotest.User{ID: "u-ana", Username: "ana", Password: "pw-ana", Groups: []string{"ml"}})
		provider := sso.NewOIDC(sso.OIDCConfig{Name: "Keycloak", Issuer: op.Issuer, ClientID: "kashi", ClientSecret: "s-kashi",
			RedirectURL: kashiURL + "/login/oidc/callback", Scopes: []string{"profile", "groups", "offline_access"}})
		cfg := webtest.TestCfg()
		cfg.OIDC, cfg.PublicURL = provider, kashiURL
		cfg.Sessions = models.SessionLimits{Idle: 1e12, Absolute: 1e12}
		srv := webtest.NewServerOn(t, s, cfg)
		ctx := context.Background()
		if _, err := s.CreateProject(ctx, "tester", "recsys", nil, webtest.T0); err != nil {
			t.Fatal(err)
		}
		rule, _ := models.ParseSSORule("oidc:ml=recsys:member")
		rules := []models.SSORule{rule}

		b := srv.Browser("10.0.3.1")
		w := b.Get("/login/oidc")
		back, err := op.SignIn(http.DefaultClient, w.Header().Get("Location"), "ana", "pw-ana")
		if err != nil {
			t.Fatal(err)
		}
		if w := b.Get(back.RequestURI()); w.Code != http.StatusSeeOther {
			t.Fatalf("the callback = %d: %s", w.Code, w.Body)
		}
		u, err := s.UserByName(ctx, "ana")
		if err != nil || u.SSORefresh == "" || strings.Contains(u.SSORefresh, ".") {
			t.Fatalf("ana after signing in = %+v, %v, want a sealed refresh token kept", u, err)
		}
		token, _, err := s.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		op.SetGroups("u-ana")
		if err := checkOIDC(ctx, s, provider, rules, webtest.T0); err != nil {
			t.Fatal(err)
		}
		after, _ := s.UserByName(ctx, "ana")
		if after.Disabled || after.SSORefresh == u.SSORefresh {
			t.Errorf("after a check ana = disabled %v, refresh renewed %v; want enabled with a renewed token", after.Disabled, after.SSORefresh != u.SSORefresh)
		}
		if m, _ := s.Memberships(ctx, u.ID); len(m) != 0 {
			t.Errorf("out of ml, after a check: memberships %v, want none", m)
		}
		if w := b.Get("/api/v1/me"); w.Code != http.StatusOK {
			t.Errorf("her session after a check = %d, want 200", w.Code)
		}

		op.Disable("u-ana")
		down := sso.NewOIDC(sso.OIDCConfig{Issuer: "http://127.0.0.1:1", ClientID: "kashi", ClientSecret: "s-kashi"})
		if err := checkOIDC(ctx, s, down, rules, webtest.T0); err == nil {
			t.Error("a check against a provider that does not answer = nil error")
		}
		if u, _ := s.UserByName(ctx, "ana"); u.Disabled {
			t.Error("a provider that does not answer disabled ana")
		}
		if err := checkOIDC(ctx, s, provider, rules, webtest.T0); err != nil {
			t.Fatal(err)
		}
		if u, _ := s.UserByName(ctx, "ana"); !u.Disabled {
			t.Error("disabled at the provider, ana is still enabled after the check")
		}
		if w := b.Get("/api/v1/me"); w.Code != http.StatusUnauthorized {
			t.Errorf("her session after the check = %d, want 401", w.Code)
		}
		if w := srv.Get("/api/v1/me", webtest.Bearer(token)...); w.Code != http.StatusUnauthorized {
			t.Errorf("her API token after the check = %d, want 401", w.Code)
		}
	})
}

// TestOIDCCheckDropsUnopened: a stored refresh token that does not open (sealed under another
// client secret) is dropped, not taken for a refusal.
func TestOIDCCheckDropsUnopened(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	lim := models.SessionLimits{Idle: time.Hour, Absolute: time.Hour}
	for _, n := range []string{"ana", "bo"} {
		if _, _, err := s.SignInExternal(ctx, models.ExternalIdentity{Method: models.SourceOIDC, ID: "iss " + n, Name: n, Refresh: "sealed-" + n}, nil, lim, webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	down := sso.NewOIDC(sso.OIDCConfig{Issuer: "http://127.0.0.1:1", ClientID: "kashi", ClientSecret: "x"})
	if err := checkOIDC(ctx, s, down, nil, webtest.T0); err != nil {
		t.Fatal(err) // "sealed-…" does not open: dropped before the provider is asked
	}
	for _, n := range []string{"ana", "bo"} {
		if u, _ := s.UserByName(ctx, n); u.Disabled || u.SSORefresh != "" {
			t.Errorf("%s = disabled %v, refresh %q; want enabled, token dropped", n, u.Disabled, u.SSORefresh)
		}
	}
}

// TestParseServeChatFlags: each chat is offered when its app id is given, with its secret
// from the environment and its callback under the public URL; a chat without its secret,
// WeCom without its agent id, any without the public URL, a non-http URL and a check period
// out of range are refused before the server starts.
func TestParseServeChatFlags(t *testing.T) {
	env := map[string]string{"KASHI_DINGTALK_CLIENT_SECRET": "d-secret", "KASHI_WECOM_SECRET": "w-secret"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServe([]string{"--public-url", "https://kashi.example.org/", "--dingtalk-client-id", "ding-app",
		"--wecom-corp-id", "ww1", "--wecom-agent-id", "1000002"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	chats, err := cfg.SSO.chats(cfg.PublicURL)
	if err != nil || len(chats) != 2 || chats[0].Platform() != sso.DingTalk || chats[1].Platform() != sso.WeCom {
		t.Fatalf("chats = %v, %v, want DingTalk and WeCom", chats, err)
	}
	if u := chats[1].AuthURL("s"); !strings.HasPrefix(u, "https://login.work.weixin.qq.com/wwlogin/sso/login?") ||
		!strings.Contains(u, "redirect_uri=https%3A%2F%2Fkashi.example.org%2Flogin%2Fchat%2Fwecom%2Fcallback") {
		t.Errorf("WeCom's sign-in goes to %s", u)
	}
	for args, want := range map[string]string{
		"--public-url https://k --feishu-app-id cli_1":                             "feishu-app-secret",
		"--public-url https://k --wecom-corp-id ww1":                               "wecom-agent-id",
		"--dingtalk-client-id d":                                                   "--public-url",
		"--public-url https://k --dingtalk-client-id d --dingtalk-api-url ftp://x": "http(s)",
		"--oidc-check-every 10s":                                                   "--oidc-check-every",
	} {
		_, err := parseServe(strings.Fields(args), getenv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseServe(%s) = %v, want an error naming %s", args, err, want)
		}
	}
}
