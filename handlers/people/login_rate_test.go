package people_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/handlers/people"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestLoginRateLimited: every sign-in request (a chat's or provider's start and return, the
// password form) spends its client address's bucket: past LoginBurst at once the next is
// 429 with Retry-After and the wait in the page's language, and asks nothing of the chat;
// another address is not held back.
func TestLoginRateLimited(t *testing.T) {
	srv, chats := chatWorld(t, modelstest.SQLite(t, models.Options{}))
	b := srv.Browser("10.0.2.1")
	b.SetCookie("kashi_lang", "zh-CN")
	for i := range people.LoginBurst - 1 {
		if w := b.Get("/login/chat/dingtalk"); w.Code != http.StatusSeeOther {
			t.Fatalf("sign-in %d = %d, want 303", i, w.Code)
		}
	}
	form := url.Values{"username": {"tester"}, "password": {"pw-tester"}}
	if w := b.Form("/login", form); w.Code != http.StatusSeeOther {
		t.Fatalf("the password form within the rate = %d, want 303", w.Code)
	}
	for _, path := range []string{"/login/chat/wecom", "/login/chat/wecom/callback?state=x&code=y"} {
		w := b.Get(path)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "2" || !strings.Contains(w.Body.String(), "此地址登录次数过多，请 2s 后再试。") {
			t.Errorf("GET %s past the rate = %d, Retry-After %q, want 429 after 2 s with the wait: %.300s", path, w.Code, w.Header().Get("Retry-After"), w.Body)
		}
	}
	if w := b.Form("/login", form); w.Code != http.StatusTooManyRequests {
		t.Errorf("the password form past the rate = %d, want 429", w.Code)
	}
	if n := chats["wecom"].Calls("/cgi-bin/gettoken"); n != 0 {
		t.Errorf("the refused return asked WeCom %d times", n)
	}
	if w := srv.Browser("10.0.2.2").Get("/login/chat/dingtalk"); w.Code != http.StatusSeeOther {
		t.Errorf("another address = %d, want 303", w.Code)
	}
}
