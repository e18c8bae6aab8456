package people_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

// TestUnixAccountAPI: an admin sets a user's Unix account through the API and clears it; a
// bad name is 422 naming unix_account, an unknown user 404, and nobody else may (403).
func TestUnixAccountAPI(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	r := w.Post("/api/v1/users/member/unix-account", `{"unix_account":"mem"}`)
	if got := webtest.Decode[api.UnixAccount](t, r); r.Code != http.StatusOK || got != (api.UnixAccount{Name: "member", UnixAccount: "mem"}) {
		t.Errorf("set = %d %+v", r.Code, got)
	}
	if u, _ := w.Store.UserByName(ctx, "member"); u.UnixAccount != "mem" {
		t.Errorf("member's account = %q, want mem", u.UnixAccount)
	}
	webtest.WantAPIError(t, "a bad name", w.Post("/api/v1/users/member/unix-account", `{"unix_account":"0day"}`),
		http.StatusUnprocessableEntity, "unix_account")
	if r := w.Post("/api/v1/users/nobody/unix-account", `{"unix_account":"x"}`); r.Code != http.StatusNotFound {
		t.Errorf("an unknown user = %d, want 404", r.Code)
	}
	if r := w.Post("/api/v1/users/member/unix-account", `{"unix_account":""}`); r.Code != http.StatusOK {
		t.Errorf("clear = %d", r.Code)
	}
	for _, role := range []string{"member", "lead", "finance", "viewer"} {
		if r := w.PostAs(role, "/api/v1/users/member/unix-account", `{"unix_account":"root"}`); r.Code != http.StatusForbidden {
			t.Errorf("set as %s = %d, want 403", role, r.Code)
		}
	}
}

// TestUnixAccountForm: the people page shows each user's Unix account and sets it; a bad
// name comes back 422 naming the field, in the page's language.
func TestUnixAccountForm(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.Form("/people/lead/unix-account", url.Values{"unix_account": {"lead-x"}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("set = %d", r.StatusCode)
	}
	doc := webtest.DocOf(t, w.Get("/people?account=lead").Result())
	if v, _ := doc.Find(`[data-testid=user-row][data-user=lead] [data-testid=unix-account-form] input[name=unix_account]`).Attr("value"); v != "lead-x" {
		t.Errorf("lead's account shown = %q, want lead-x", v)
	}
	if n := doc.Find(`[data-testid=notice]`).Text(); !strings.Contains(n, "lead") {
		t.Errorf("notice = %q", n)
	}
	r = w.Form("/people/lead/unix-account", url.Values{"unix_account": {"lead x"}}, "Cookie", "kashi_lang=zh-CN")
	doc = webtest.DocOf(t, r)
	e := doc.Find(`[data-testid=user-error]`)
	if f, _ := e.Attr("data-field"); r.StatusCode != http.StatusUnprocessableEntity || f != "unix_account" || !strings.Contains(e.Text(), "Unix 用户名") {
		t.Errorf("a bad account = %d naming %q: %q", r.StatusCode, f, e.Text())
	}
	if v, _ := doc.Find(`[data-testid=user-row][data-user=lead] input[name=unix_account]`).Attr("aria-invalid"); v != "true" {
		t.Errorf("the refused input's aria-invalid = %q", v)
	}
}
