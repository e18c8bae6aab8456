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

// chatWorld is a Kashi that signs people in through DingTalk, Feishu and WeCom, each a test
// server following the platform's documents (ssotest.StartChat, where they are cited), with
// the project recsys, a stored rule of each chat's department 算法组 → recsys member, and a
// configured one of WeCom's department 研发部 (by its id, 2) → viewer. ana is in 算法组 in
// each chat.
func chatWorld(t *testing.T, s *models.Store) (*webtest.Server, map[string]*ssotest.ChatServer) {
	t.Helper()
	cfg := webtest.TestCfg()
	depts := map[string]map[string]string{sso.DingTalk: {"42": "算法组"}, sso.Feishu: {"od-ml": "算法组"}, sso.WeCom: {"2": "研发部", "7": "算法组"}}
	anas := map[string]ssotest.ChatUser{
		sso.DingTalk: {UserID: "manager4711", UnionID: "union-ana", Email: "ana@example.org", Depts: []string{"42"}},
		sso.Feishu:   {UserID: "ana-fs", UnionID: "ou_ana", Depts: []string{"od-ml"}},
		sso.WeCom:    {UserID: "AnaLi", Depts: []string{"2", "7"}},
	}
	servers := map[string]*ssotest.ChatServer{}
	for _, p := range []string{sso.DingTalk, sso.Feishu, sso.WeCom} {
		app := ssotest.ChatApp{ClientID: p + "-app", Secret: p + "-secret", AgentID: "1000002", RedirectURL: kashiURL + "/login/chat/" + p + "/callback"}
		srv := ssotest.StartChat(t, p, []ssotest.ChatApp{app}, depts[p], anas[p])
		chat, err := sso.NewChat(sso.ChatConfig{Platform: p, ClientID: app.ClientID, Secret: app.Secret, AgentID: app.AgentID,
			RedirectURL: app.RedirectURL, LoginURL: srv.URL, APIURL: srv.URL, OldAPIURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Chats, servers[p] = append(cfg.Chats, chat), srv
	}
	viewers, err := models.ParseSSORule("wecom:2=viewer")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SSORules, cfg.PublicURL = []models.SSORule{viewers}, kashiURL
	cfg.Sessions = models.SessionLimits{Idle: 1e12, Absolute: 1e12}
	web := webtest.NewServerOn(t, s, cfg)
	ctx := context.Background()
	if _, err := s.CreateProject(ctx, "tester", "recsys", nil, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{sso.DingTalk, sso.Feishu, sso.WeCom} {
		if _, err := s.CreateSSORule(ctx, "tester", models.SSORule{Method: p, GroupName: "算法组", ProjectName: "recsys", Role: "member"}, webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	return web, servers
}

// chatSignIn begins a sign-in through platform in b, signs in at the chat as userID, and
// returns the URL the chat sends the browser back to (path and query on Kashi).
func chatSignIn(t *testing.T, b *webtest.Session, chat *ssotest.ChatServer, platform, userID, next string) string {
	t.Helper()
	w := b.Get("/login/chat/" + platform + "?next=" + url.QueryEscape(next))
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), chat.URL) {
		t.Fatalf("GET /login/chat/%s = %d to %q, want 303 to the chat", platform, w.Code, w.Header().Get("Location"))
	}
	back, err := chat.ChatSignIn(http.DefaultClient, w.Header().Get("Location"), userID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.String(), kashiURL+"/login/chat/"+platform+"/callback?") {
		t.Fatalf("the chat sent the browser to %s", back)
	}
	return back.RequestURI()
}

// TestChatSignInMapsDepartments: through each chat's documented flow and Kashi's routes, the
// first sign-in creates ana as a member of recsys (her department 算法组's rule; WeCom's 研发部
// also makes her a viewer by the configured rule), stores her id in that chat as her chat id
// (so the robots mention her without her typing it), and is audited with its method; leaving
// the department takes the membership away at the next sign-in.
func TestChatSignInMapsDepartments(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		srv, chats := chatWorld(t, s)
		ctx := context.Background()
		for _, tc := range []struct {
			platform, userID, name, role string
			chatIDs                      models.ChatIDs
		}{
			{sso.DingTalk, "manager4711", "ana", models.RoleUser, models.ChatIDs{DingTalk: "manager4711"}},
			{sso.Feishu, "ana-fs", "ana-fs", models.RoleUser, models.ChatIDs{Feishu: "ou_ana"}},
			{sso.WeCom, "AnaLi", "AnaLi", models.RoleViewer, models.ChatIDs{WeCom: "AnaLi"}},
		} {
			b := srv.Browser("10.0.1.1")
			back := chatSignIn(t, b, chats[tc.platform], tc.platform, tc.userID, "/queue")
			if w := b.Get(back); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/queue" {
				t.Fatalf("%s: the callback = %d to %q, want 303 to /queue: %s", tc.platform, w.Code, w.Header().Get("Location"), w.Body)
			}
			u, err := s.UserByName(ctx, tc.name)
			if err != nil || u.Source != tc.platform || u.Role != tc.role {
				t.Fatalf("%s: %s after the first sign-in = %+v, %v, want a %s from %s", tc.platform, tc.name, u, err, tc.role, tc.platform)
			}
			if got := me(t, b); !strings.Contains(got, `"name":"`+tc.name+`"`) {
				t.Errorf("%s: /api/v1/me = %s", tc.platform, got)
			}
			if m, _ := s.Memberships(ctx, u.ID); len(m) != 1 {
				t.Errorf("%s: memberships = %v, want recsys", tc.platform, m)
			}
			if ids, _ := s.ChatIDsOf(ctx, tc.name); ids != tc.chatIDs {
				t.Errorf("%s: chat ids = %+v, want %+v", tc.platform, ids, tc.chatIDs)
			}
			log, _ := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditLogin, Actor: tc.name})
			if len(log) != 1 || !strings.Contains(log[0].After, `"method":"`+tc.platform+`"`) {
				t.Errorf("%s: the sign-in's audit = %+v, want its method", tc.platform, log)
			}
		}

		chats[sso.WeCom].SetDepts("AnaLi", "2")
		b := srv.Browser("10.0.1.1")
		b.Get(chatSignIn(t, b, chats[sso.WeCom], sso.WeCom, "AnaLi", "/"))
		u, _ := s.UserByName(ctx, "AnaLi")
		if m, _ := s.Memberships(ctx, u.ID); len(m) != 0 || u.Role != models.RoleViewer {
			t.Errorf("out of 算法组: role %q, memberships %v, want a viewer with none", u.Role, m)
		}
	})
}

// TestChatStateRefused: a chat's return is taken once, only by the browser that began the
// sign-in, and only at the chat it was begun at; a chat not configured is 404.
func TestChatStateRefused(t *testing.T) {
	srv, chats := chatWorld(t, modelstest.SQLite(t, models.Options{}))
	b := srv.Browser("10.0.1.2")
	back := chatSignIn(t, b, chats[sso.DingTalk], sso.DingTalk, "manager4711", "/")
	state := b.Cookie("kashi_sso")
	if w := b.Get(back); w.Code != http.StatusSeeOther {
		t.Fatalf("the callback = %d, want 303", w.Code)
	}
	replay := srv.Browser("10.0.1.2")
	replay.SetCookie("kashi_sso", state)
	if w := replay.Get(back); w.Code != http.StatusBadRequest || replay.Cookie("kashi_session") != "" {
		t.Errorf("the callback replayed with its cookie = %d, want 400 and no session", w.Code)
	}
	if w := srv.Browser("10.0.1.3").Get(chatSignIn(t, b, chats[sso.DingTalk], sso.DingTalk, "manager4711", "/")); w.Code != http.StatusBadRequest {
		t.Errorf("a return brought to another browser = %d, want 400", w.Code)
	}
	// DingTalk's state and code brought to WeCom's callback, with the cookie.
	back = chatSignIn(t, b, chats[sso.DingTalk], sso.DingTalk, "manager4711", "/")
	other := srv.Browser("10.0.1.4")
	other.SetCookie("kashi_sso", b.Cookie("kashi_sso"))
	if w := other.Get(strings.Replace(back, "/dingtalk/", "/wecom/", 1)); w.Code != http.StatusBadRequest {
		t.Errorf("DingTalk's return at WeCom's callback = %d, want 400", w.Code)
	}
	if w := b.Get("/login/chat/slack"); w.Code != http.StatusNotFound {
		t.Errorf("a chat not configured = %d, want 404", w.Code)
	}
	refused := srv.Browser("10.0.1.5")
	refused.Get("/login/chat/feishu")
	st := refused.Cookie("kashi_sso")
	if w := refused.Get("/login/chat/feishu/callback?state=" + st + "&code=made-up"); w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `data-testid="login-problem"`) {
		t.Errorf("a made-up code = %d, want 401 with the problem", w.Code)
	}
}

// TestLoginPageOffersChats: the login page offers each configured chat by its name in the
// page's language, keeping the page to return to.
func TestLoginPageOffersChats(t *testing.T) {
	srv, _ := chatWorld(t, modelstest.SQLite(t, models.Options{}))
	for lang, want := range map[string][]string{
		"en":    {"Sign in with DingTalk", "Sign in with Feishu", "Sign in with WeCom"},
		"zh-CN": {"使用 钉钉 登录", "使用 飞书 登录", "使用 企业微信 登录"},
	} {
		b := srv.Browser("10.0.1.6")
		b.SetCookie("kashi_lang", lang)
		body := b.Get("/login?next=/queue").Body.String()
		for _, w := range append(want, `href="/login/chat/wecom?next=%2Fqueue"`) {
			if !strings.Contains(body, w) {
				t.Errorf("%s login page lacks %q", lang, w)
			}
		}
	}
}
