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

// TestBrowserChatSignIn signs in through DingTalk in headless Chromium: the login page, with
// every method configured (an OpenID provider, LDAP, DingTalk, Feishu, WeCom), shows in both
// languages on a phone and at 1600 px without scrolling sideways; then its DingTalk button
// leads to DingTalk's login (a server in the test following DingTalk's documents), where ana
// signs in, and Kashi opens as her, created on the way as a member of recsys (her department
// 算法组's rule) with her DingTalk userid as her chat id.
func TestBrowserChatSignIn(t *testing.T) {
	t.Parallel()
	var h http.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	kashiURL := "http://" + srv.Listener.Addr().String()
	cfg := webtest.TestCfg()
	op := ssotest.Start(t, []ssotest.Client{{ID: "kashi", Secret: "s-kashi", RedirectURL: kashiURL + "/login/oidc/callback"}})
	cfg.OIDC = sso.NewOIDC(sso.OIDCConfig{Name: "Keycloak", Issuer: op.Issuer, ClientID: "kashi", ClientSecret: "s-kashi",
		RedirectURL: kashiURL + "/login/oidc/callback"})
	var err error
	cfg.LDAP, err = sso.NewLDAP(sso.LDAPConfig{URL: "ldap://127.0.0.1:1", BaseDN: "dc=x", UserFilter: "(uid=%s)"})
	if err != nil {
		t.Fatal(err)
	}
	var ding *ssotest.ChatServer
	for _, p := range []string{sso.DingTalk, sso.Feishu, sso.WeCom} {
		app := ssotest.ChatApp{ClientID: p + "-app", Secret: p + "-secret", AgentID: "1000002", RedirectURL: kashiURL + "/login/chat/" + p + "/callback"}
		chat := ssotest.StartChat(t, p, []ssotest.ChatApp{app}, map[string]string{"42": "算法组"},
			ssotest.ChatUser{UserID: "manager4711", UnionID: "union-ana", Email: "ana@example.org", Depts: []string{"42"}})
		if p == sso.DingTalk {
			ding = chat
		}
		c, err := sso.NewChat(sso.ChatConfig{Platform: p, ClientID: app.ClientID, Secret: app.Secret, AgentID: app.AgentID,
			RedirectURL: app.RedirectURL, LoginURL: chat.URL, APIURL: chat.URL, OldAPIURL: chat.URL})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Chats = append(cfg.Chats, c)
	}
	cfg.PublicURL = kashiURL
	cfg.Sessions = models.SessionLimits{Idle: time.Hour, Absolute: time.Hour}
	store := modelstest.SQLite(t, models.Options{})
	s := webtest.NewServerOn(t, store, cfg)
	ctx := context.Background()
	if _, err := store.CreateProject(ctx, "tester", "recsys", nil, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateSSORule(ctx, "tester", models.SSORule{Method: "dingtalk", GroupName: "算法组", ProjectName: "recsys", Role: "member"}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	h = s.E
	srv.Start()
	defer srv.Close()

	b := newBrowser(t, kashiURL, 90*time.Second)
	shootPages(t, b, kashiURL, "sso", []shotPage{{"login-all", "/login", `[data-testid=login-methods]`}})
	buttons, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=login-method]')].map(a => a.textContent)`))
	want := []string{"使用 Keycloak 登录", "使用 钉钉 登录", "使用 飞书 登录", "使用 企业微信 登录"}
	if err != nil || len(buttons) != len(want) || buttons[1] != want[1] || buttons[3] != want[3] {
		t.Errorf("the login page's buttons read %q (%v), want %q", buttons, err, want)
	}
	err = chromedp.Do(b.ctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(kashiURL+"/login?next=/queue"),
		chromedp.Click(css(`a[href^="/login/chat/dingtalk"]`)),
		chromedp.WaitVisible(css(`#as-manager4711`)),
		b.shot("sso-dingtalk-login.png"),
		chromedp.Click(css(`#as-manager4711`)),
		chromedp.WaitVisible(css(`[data-testid=who]`)),
	)
	if err != nil {
		t.Fatalf("sign in at DingTalk: %v (screenshots in %s)", err, b.shots)
	}
	if at, err := chromedp.Run(b.ctx, chromedp.Location()); err != nil || at != kashiURL+"/queue" {
		t.Errorf("after signing in the browser is at %q (%v), want /queue", at, err)
	}
	u, err := store.UserByName(ctx, "ana")
	if err != nil || u.Source != models.SourceDingTalk || u.ChatDingTalk != "manager4711" {
		t.Fatalf("ana after her first sign-in = %+v, %v, want a DingTalk user with her userid as chat id", u, err)
	}
	if m, _ := store.Memberships(ctx, u.ID); len(m) != 1 {
		t.Errorf("ana's memberships = %v, want recsys", m)
	}
	if ding.Calls("/v1.0/oauth2/userAccessToken") != 1 {
		t.Errorf("DingTalk's code was exchanged %d times, want 1", ding.Calls("/v1.0/oauth2/userAccessToken"))
	}
}
