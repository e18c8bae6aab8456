package sso_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/sso"
	"kashi/sso/ssotest"
)

const chatBack = "http://kashi.test/login/chat/"

// chatCase is one platform's app and members, as its test server (ssotest.StartChat, which
// follows the documents cited there) knows them.
type chatCase struct {
	app, other ssotest.ChatApp
	depts      map[string]string
	ana        ssotest.ChatUser
	// want is who ana is to Kashi.
	want sso.Identity
}

func chatCases() map[string]chatCase {
	return map[string]chatCase{
		sso.DingTalk: {
			app:   ssotest.ChatApp{ClientID: "ding-app", Secret: "ding-secret", RedirectURL: chatBack + "dingtalk/callback"},
			other: ssotest.ChatApp{ClientID: "ding-other", Secret: "other-secret", RedirectURL: chatBack + "dingtalk/callback"},
			depts: map[string]string{"1": "总部", "42": "算法组"},
			ana:   ssotest.ChatUser{UserID: "manager4711", UnionID: "union-ana", Email: "ana@example.org", Depts: []string{"42"}},
			want:  sso.Identity{ID: "union-ana", Name: "ana", Email: "ana@example.org", ChatID: "manager4711", Groups: []string{"42", "算法组"}},
		},
		sso.Feishu: {
			app:   ssotest.ChatApp{ClientID: "cli_app", Secret: "fs-secret", RedirectURL: chatBack + "feishu/callback"},
			other: ssotest.ChatApp{ClientID: "cli_other", Secret: "other-secret", RedirectURL: chatBack + "feishu/callback"},
			depts: map[string]string{"od-ml": "算法组"},
			ana:   ssotest.ChatUser{UserID: "ana-li", UnionID: "ou_ana", Depts: []string{"od-ml"}},
			want:  sso.Identity{ID: "ou_ana", Name: "ana-li", ChatID: "ou_ana", Groups: []string{"od-ml", "算法组"}},
		},
		sso.WeCom: {
			app:   ssotest.ChatApp{ClientID: "ww-corp", AgentID: "1000002", Secret: "app-secret", RedirectURL: chatBack + "wecom/callback"},
			other: ssotest.ChatApp{ClientID: "ww-corp2", AgentID: "1000003", Secret: "other-secret", RedirectURL: chatBack + "wecom/callback"},
			depts: map[string]string{"2": "研发部", "7": "算法组"},
			ana:   ssotest.ChatUser{UserID: "AnaLi", Email: "ana@example.org", Depts: []string{"2", "7"}},
			want:  sso.Identity{ID: "AnaLi", Name: "AnaLi", Email: "ana@example.org", ChatID: "AnaLi", Groups: []string{"2", "研发部", "7", "算法组"}},
		},
	}
}

// chatOf is Kashi's sign-in through app at srv.
func chatOf(t *testing.T, platform string, srv *ssotest.ChatServer, app ssotest.ChatApp) *sso.Chat {
	t.Helper()
	c, err := sso.NewChat(sso.ChatConfig{Platform: platform, ClientID: app.ClientID, Secret: app.Secret, AgentID: app.AgentID,
		RedirectURL: app.RedirectURL, LoginURL: srv.URL, APIURL: srv.URL, OldAPIURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChatSignIn signs ana in through each chat's documented flow: the login page takes the
// app and state and sends the browser back with a code and the same state; the code gives
// her id, name, chat id (for mentions) and departments by id and name. The same code again,
// a code issued to another app, a made-up one and a disabled member are refused; an app
// token the platform says expired is asked for again once.
func TestChatSignIn(t *testing.T) {
	for platform, tc := range chatCases() {
		t.Run(platform, func(t *testing.T) {
			bo := ssotest.ChatUser{UserID: "bo", UnionID: "union-bo", Disabled: true}
			if platform == sso.Feishu {
				bo.UnionID = "ou_bo"
			}
			srv := ssotest.StartChat(t, platform, []ssotest.ChatApp{tc.app, tc.other}, tc.depts, tc.ana, bo)
			chat, other := chatOf(t, platform, srv, tc.app), chatOf(t, platform, srv, tc.other)
			ctx := context.Background()
			signIn := func(c *sso.Chat, user string) url.Values {
				t.Helper()
				back, err := srv.ChatSignIn(http.DefaultClient, c.AuthURL("st-1"), user)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(back.String(), chatBack+platform+"/callback?") || back.Query().Get("state") != "st-1" {
					t.Fatalf("the chat sent the browser to %s, want the callback with the state", back)
				}
				return back.Query()
			}
			q := signIn(chat, tc.ana.UserID)
			id, err := chat.Finish(ctx, q)
			if err != nil || id.ID != tc.want.ID || id.Name != tc.want.Name || id.ChatID != tc.want.ChatID || id.Email != tc.want.Email || !slices.Equal(id.Groups, tc.want.Groups) {
				t.Errorf("Finish = %+v, %v, want %+v", id, err, tc.want)
			}
			if _, err := chat.Finish(ctx, q); !errors.Is(err, sso.ErrRefused) {
				t.Errorf("the same code again = %v, want ErrRefused", err)
			}
			if _, err := chat.Finish(ctx, signIn(other, tc.ana.UserID)); !errors.Is(err, sso.ErrRefused) {
				t.Errorf("another app's code = %v, want ErrRefused", err)
			}
			for _, bad := range []url.Values{{"code": {"made-up"}}, {}, {"code": {strings.Repeat("x", 600)}}} {
				if _, err := chat.Finish(ctx, bad); !errors.Is(err, sso.ErrRefused) {
					t.Errorf("Finish(%v) = %v, want ErrRefused", bad, err)
				}
			}
			if _, err := chat.Finish(ctx, signIn(chat, "bo")); !errors.Is(err, sso.ErrRefused) {
				t.Errorf("a disabled member = %v, want ErrRefused", err)
			}
			srv.ExpireAppTokens()
			if id, err := chat.Finish(ctx, signIn(chat, tc.ana.UserID)); err != nil || id.ID != tc.want.ID {
				t.Errorf("after the app token expired: %+v, %v", id, err)
			}
		})
	}
}

// TestChatAppTokenKept: the app's token is asked for once and kept while it lasts (the
// platforms limit how often it may be asked), then asked for again shortly before it ends.
func TestChatAppTokenKept(t *testing.T) {
	tc := chatCases()[sso.WeCom]
	srv := ssotest.StartChat(t, sso.WeCom, []ssotest.ChatApp{tc.app}, tc.depts, tc.ana)
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	chat, err := sso.NewChat(sso.ChatConfig{Platform: sso.WeCom, ClientID: tc.app.ClientID, Secret: tc.app.Secret, AgentID: tc.app.AgentID,
		RedirectURL: tc.app.RedirectURL, LoginURL: srv.URL, APIURL: srv.URL, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		back, err := srv.ChatSignIn(http.DefaultClient, chat.AuthURL("s"), tc.ana.UserID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chat.Finish(context.Background(), back.Query()); err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
	}
	if n := srv.Calls("/cgi-bin/gettoken"); n != 1 {
		t.Errorf("gettoken was asked %d times for 3 sign-ins, want 1", n)
	}
	now = now.Add(2*time.Hour - 4*time.Minute)
	back, _ := srv.ChatSignIn(http.DefaultClient, chat.AuthURL("s"), tc.ana.UserID)
	if _, err := chat.Finish(context.Background(), back.Query()); err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls("/cgi-bin/gettoken"); n != 2 {
		t.Errorf("gettoken was asked %d times, want 2: the token had under five minutes left", n)
	}
}

// TestNewChatChecks: an unknown platform and a missing id, secret or (WeCom) agent id are
// refused when Kashi starts.
func TestNewChatChecks(t *testing.T) {
	for name, cfg := range map[string]sso.ChatConfig{
		"platform": {Platform: "slack", ClientID: "a", Secret: "b"},
		"id":       {Platform: sso.DingTalk, Secret: "b"},
		"secret":   {Platform: sso.Feishu, ClientID: "a"},
		"agent":    {Platform: sso.WeCom, ClientID: "a", Secret: "b"},
	} {
		if _, err := sso.NewChat(cfg); err == nil {
			t.Errorf("%s: NewChat(%+v) = nil error", name, cfg)
		}
	}
}
