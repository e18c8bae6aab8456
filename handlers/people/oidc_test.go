package people_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/sso"
	"kashi/sso/ssotest"
	"kashi/web/webtest"
)

// kashiURL is where the test's provider sends browsers back; the test brings them to the
// router itself.
const kashiURL = "http://kashi.test"

// oidcWorld is a Kashi with an OpenID provider running in the test (zitadel/oidc's op),
// the project recsys, a stored rule ml → recsys member and a configured one admins → admin,
// and the provider's user ana in ml.
func oidcWorld(t *testing.T, s *models.Store, adminsOnly bool) (*webtest.Server, *ssotest.OP) {
	op := ssotest.Start(t, []ssotest.Client{{ID: "kashi", Secret: "s-kashi", RedirectURL: kashiURL + "/login/oidc/callback"}},
		ssotest.User{ID: "u-ana", Username: "ana", Password: "pw-ana", Email: "ana@example.org", Groups: []string{"ml"}})
	cfg := webtest.TestCfg()
	cfg.OIDC = sso.NewOIDC(sso.OIDCConfig{Name: "Keycloak", Issuer: op.Issuer, ClientID: "kashi", ClientSecret: "s-kashi",
		RedirectURL: kashiURL + "/login/oidc/callback", Scopes: []string{"profile", "email", "groups"}})
	admins, err := models.ParseSSORule("oidc:admins=admin")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SSORules, cfg.PasswordAdminsOnly, cfg.PublicURL = []models.SSORule{admins}, adminsOnly, kashiURL
	cfg.Sessions = models.SessionLimits{Idle: 1e12, Absolute: 1e12}
	srv := webtest.NewServerOn(t, s, cfg)
	ctx := context.Background()
	if _, err := s.CreateProject(ctx, "tester", "recsys", nil, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSSORule(ctx, "tester", models.SSORule{Method: "oidc", GroupName: "ml", ProjectName: "recsys", Role: "member"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	return srv, op
}

// oidcSignIn begins a sign-in in b, signs in at the provider as ana, and returns the URL the
// provider sends the browser back to (path and query on Kashi).
func oidcSignIn(t *testing.T, b *webtest.Session, op *ssotest.OP, next string) string {
	t.Helper()
	w := b.Get("/login/oidc?next=" + url.QueryEscape(next))
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), op.Issuer) {
		t.Fatalf("GET /login/oidc = %d to %q, want 303 to the provider", w.Code, w.Header().Get("Location"))
	}
	back, err := op.SignIn(http.DefaultClient, w.Header().Get("Location"), "ana", "pw-ana")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.String(), kashiURL+"/login/oidc/callback?") {
		t.Fatalf("the provider sent the browser to %s", back)
	}
	return back.RequestURI()
}

// me is the signed-in user's role and projects, as /api/v1/me gives them.
func me(t *testing.T, b *webtest.Session) string {
	t.Helper()
	w := b.Get("/api/v1/me")
	if w.Code != http.StatusOK {
		return w.Result().Status
	}
	return strings.TrimSpace(w.Body.String())
}

// TestOIDCSignInMapsGroups: the whole code flow through Kashi's routes against a real
// provider: the first sign-in creates ana as a member of recsys (her group ml's rule) and is
// audited with its method; a group the configuration maps to admin makes her admin at the
// next sign-in; leaving every group takes the access away at the next sign-in; a user the
// admin disabled is refused.
func TestOIDCSignInMapsGroups(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		srv, op := oidcWorld(t, s, false)
		ctx := context.Background()
		b := srv.Browser("10.0.0.7")
		back := oidcSignIn(t, b, op, "/queue")
		if w := b.Get(back); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/queue" {
			t.Fatalf("the callback = %d to %q, want 303 to /queue: %s", w.Code, w.Header().Get("Location"), w.Body)
		}
		u, err := s.UserByName(ctx, "ana")
		if err != nil || u.Source != models.SourceOIDC || u.Role != models.RoleUser {
			t.Fatalf("ana after the first sign-in = %+v, %v", u, err)
		}
		if got := me(t, b); !strings.Contains(got, `"name":"ana"`) {
			t.Errorf("/api/v1/me after the first sign-in = %s, want ana", got)
		}
		if m, _ := s.Memberships(ctx, u.ID); len(m) != 1 {
			t.Errorf("ana's memberships after the first sign-in = %v, want recsys", m)
		}
		if w := b.Get("/api/v1/pipelines"); w.Code != http.StatusOK {
			t.Errorf("a member's route after the first sign-in = %d, want 200", w.Code)
		}
		log, _ := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditLogin})
		if len(log) != 1 || log[0].Actor != "ana" || !strings.Contains(log[0].After, `"method":"oidc"`) {
			t.Errorf("the sign-in's audit = %+v, want ana's login by oidc", log)
		}

		op.SetGroups("u-ana", "ml", "admins")
		b2 := srv.Browser("10.0.0.7")
		b2.Get(oidcSignIn(t, b2, op, "/"))
		if u, _ := s.UserByName(ctx, "ana"); u.Role != models.RoleAdmin {
			t.Errorf("in admins: role %q, want admin", u.Role)
		}

		op.SetGroups("u-ana")
		b3 := srv.Browser("10.0.0.7")
		b3.Get(oidcSignIn(t, b3, op, "/"))
		u, _ = s.UserByName(ctx, "ana")
		if m, _ := s.Memberships(ctx, u.ID); u.Role != models.RoleUser || len(m) != 0 {
			t.Errorf("in no group: role %q, memberships %v, want a user with none", u.Role, m)
		}
		// Her first browser's session reads her access as it is now.
		if w := b.Get("/api/v1/pipelines"); w.Code != http.StatusForbidden {
			t.Errorf("a member's route after leaving ml = %d, want 403", w.Code)
		}

		if err := s.SetUserDisabled(ctx, "tester", "ana", true, webtest.T0); err != nil {
			t.Fatal(err)
		}
		b4 := srv.Browser("10.0.0.7")
		if w := b4.Get(oidcSignIn(t, b4, op, "/")); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), `data-testid="login-problem"`) {
			t.Errorf("a disabled user's sign-in = %d, want 403 with the problem", w.Code)
		}
	})
}

// TestOIDCStateReplayRefused: a callback is taken once, and only by the browser that began
// the sign-in: the same return replayed, or brought to another browser (login CSRF), is
// refused with 400 and opens no session.
func TestOIDCStateReplayRefused(t *testing.T) {
	srv, op := oidcWorld(t, modelstest.SQLite(t, models.Options{}), false)
	b := srv.Browser("10.0.0.8")
	back := oidcSignIn(t, b, op, "/")
	state := b.Cookie("kashi_sso")
	if state == "" {
		t.Fatal("GET /login/oidc set no kashi_sso cookie")
	}
	if w := b.Get(back); w.Code != http.StatusSeeOther {
		t.Fatalf("the callback = %d, want 303", w.Code)
	}
	replay := srv.Browser("10.0.0.8")
	replay.SetCookie("kashi_sso", state)
	if w := replay.Get(back); w.Code != http.StatusBadRequest || replay.Cookie("kashi_session") != "" {
		t.Errorf("the callback replayed with its cookie = %d, want 400 and no session", w.Code)
	}

	other := srv.Browser("10.0.0.9")
	back = oidcSignIn(t, b, op, "/")
	if w := other.Get(back); w.Code != http.StatusBadRequest {
		t.Errorf("a return brought to another browser = %d, want 400", w.Code)
	}
	other.SetCookie("kashi_sso", "not-this-sign-ins-state")
	if w := other.Get(back); w.Code != http.StatusBadRequest {
		t.Errorf("a return with another state's cookie = %d, want 400", w.Code)
	}
}

// TestLoginPageOffersMethods: the login page names the provider in the page's language, and
// with password sign-in kept for break-glass admins it says so, refuses a local user's
// password as it refuses a wrong one, and lets a local admin in.
func TestLoginPageOffersMethods(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	srv, _ := oidcWorld(t, s, true)
	for lang, want := range map[string][]string{
		"en":    {"Sign in with Keycloak", "break-glass"},
		"zh-CN": {"使用 Keycloak 登录", "应急管理员"},
	} {
		b := srv.Browser("10.0.0.10")
		b.SetCookie("kashi_lang", lang)
		body := b.Get("/login?next=/queue").Body.String()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s login page lacks %q", lang, w)
			}
		}
		if !strings.Contains(body, `href="/login/oidc?next=%2Fqueue"`) {
			t.Errorf("%s login page's button does not keep next", lang)
		}
	}
	if _, err := s.CreateUser(context.Background(), "bo", "pw-bo", models.RoleUser, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if w := srv.Login("bo", "pw-bo", "10.0.0.11"); w.Code != http.StatusUnauthorized {
		t.Errorf("a local user's password login with --password-login admins = %d, want 401", w.Code)
	}
	if w := srv.Login("tester", "pw-tester", "10.0.0.12"); w.Code != http.StatusSeeOther {
		t.Errorf("a local admin's password login = %d, want 303", w.Code)
	}
}
