package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/sso"
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
