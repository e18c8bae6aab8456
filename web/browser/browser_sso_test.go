package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/sso"
	"kashi/sso/ssotest"
	"kashi/web/webtest"
)

// TestBrowserOIDCSignIn signs in through an OpenID provider running in the test
// (zitadel/oidc's op) in headless Chromium, the whole code flow: Kashi's login page in
// Chinese offers the provider's button, the provider's own login page takes the password,
// and Kashi opens the page asked for, as ana, whom the first sign-in created as an admin (her
// group admins, by the configuration's rule) and member of recsys (ml, by the stored rule).
// Then the sign-in mapping page shows in both languages, on a phone and at 1600 px, without
// scrolling sideways; and logging out ends the session at the provider too.
func TestBrowserOIDCSignIn(t *testing.T) {
	t.Parallel()
	var h http.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	kashiURL := "http://" + srv.Listener.Addr().String()
	op := ssotest.Start(t, []ssotest.Client{{ID: "kashi", Secret: "s-kashi", RedirectURL: kashiURL + "/login/oidc/callback"}},
		ssotest.User{ID: "u-ana", Username: "ana", Password: "pw-ana", Email: "ana@example.org", Groups: []string{"ml", "admins"}})
	store := modelstest.SQLite(t, models.Options{})
	cfg := webtest.TestCfg()
	cfg.OIDC = sso.NewOIDC(sso.OIDCConfig{Name: "Keycloak", Issuer: op.Issuer, ClientID: "kashi", ClientSecret: "s-kashi",
		RedirectURL: kashiURL + "/login/oidc/callback", Scopes: []string{"profile", "email", "groups"}})
	admins, _ := models.ParseSSORule("oidc:admins=admin")
	cfg.SSORules, cfg.PublicURL = []models.SSORule{admins}, kashiURL
	cfg.Sessions = models.SessionLimits{Idle: time.Hour, Absolute: time.Hour}
	s := webtest.NewServerOn(t, store, cfg)
	ctx := context.Background()
	if _, err := store.CreateProject(ctx, "tester", "recsys", nil, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateSSORule(ctx, "tester", models.SSORule{Method: "oidc", GroupName: "ml", ProjectName: "recsys", Role: "member"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	h = s.E
	srv.Start()
	defer srv.Close()

	b := newBrowser(t, kashiURL, 90*time.Second)
	err := chromedp.Do(b.ctx,
		chromedp.Navigate(kashiURL+"/lang?set=zh-CN"),
		chromedp.Navigate(kashiURL+"/people/sso"),
		chromedp.WaitVisible(css(`[data-testid=login-method]`)),
		b.shot("sso-login-zh-CN.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	button, err := chromedp.Run(b.ctx, chromedp.Text(css(`[data-testid=login-method]`)))
	if err != nil || button != "使用 Keycloak 登录" {
		t.Errorf("the login page's button reads %q (%v), want 使用 Keycloak 登录", button, err)
	}
	err = chromedp.Do(b.ctx,
		chromedp.Click(css(`[data-testid=login-method]`)),
		chromedp.WaitVisible(css(`#username`)),
		chromedp.SendKeys(css(`#username`), "ana"),
		chromedp.SendKeys(css(`#password`), "pw-ana"),
		chromedp.Submit(css(`form`)),
		chromedp.WaitVisible(css(`[data-testid=sso-form]`)),
	)
	if err != nil {
		t.Fatalf("sign in at the provider: %v (screenshots in %s)", err, b.shots)
	}
	u, err := store.UserByName(ctx, "ana")
	if err != nil || u.Role != models.RoleAdmin || u.Source != models.SourceOIDC {
		t.Fatalf("ana after her first sign-in = %+v, %v, want an admin from oidc", u, err)
	}
	if m, _ := store.Memberships(ctx, u.ID); len(m) != 1 {
		t.Errorf("ana's memberships = %v, want recsys", m)
	}
	shootPages(t, b, kashiURL, "sso", []shotPage{{"mapping", "/people/sso", `[data-testid=sso-form]`}})

	err = chromedp.Do(b.ctx,
		chromedp.Navigate(kashiURL+"/"),
		chromedp.WaitVisible(css(`[data-testid=who]`)),
		chromedp.Submit(css(`[data-testid=who]`)),
		chromedp.WaitReady(`body`),
	)
	if err != nil {
		t.Fatal(err)
	}
	at, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil || len(at) < len(op.Issuer) || at[:len(op.Issuer)] != op.Issuer {
		t.Errorf("logging out ended at %q (%v), want the provider's logout", at, err)
	}
}
