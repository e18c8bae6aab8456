package people_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"kashi/models"
	"kashi/web/webtest"
)

// TestChatIDsForm: a user sets their own chat ids on the account page, from a browser
// session only (a write token is refused and changes nothing); the page shows them and
// says so; a bad id is refused with 422 naming its field, the values typed kept in the form,
// and nothing stored.
func TestChatIDsForm(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	tok := writeToken(t, s, "ana")
	ids := url.Values{"chat_dingtalk": {"13800000000"}, "chat_feishu": {" ou_7f3a "}, "chat_wecom": {"ana.li"}}
	if r := s.Form("/account/chat", ids, webtest.Bearer(tok)...); r.StatusCode != http.StatusForbidden {
		t.Errorf("chat ids with a write token = %d, want 403", r.StatusCode)
	}
	if got, _ := s.Store.ChatIDsOf(ctx, "ana"); got != (models.ChatIDs{}) {
		t.Errorf("a token set chat ids %+v", got)
	}
	b := s.LogIn("ana", "pw-ana", "192.0.2.1")
	if w := b.Form("/account/chat", ids); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/account?chat=1" {
		t.Fatalf("chat ids from a session = %d → %q, want 303 to /account?chat=1", w.Code, w.Header().Get("Location"))
	}
	want := models.ChatIDs{DingTalk: "13800000000", Feishu: "ou_7f3a", WeCom: "ana.li"}
	if got, err := s.Store.ChatIDsOf(ctx, "ana"); err != nil || got != want {
		t.Errorf("stored %+v, %v; want %+v", got, err, want)
	}
	doc := webtest.DocOf(t, b.Get("/account?chat=1").Result())
	if v, _ := doc.Find(`[data-testid=chat-form] input[name=chat_feishu]`).Attr("value"); v != "ou_7f3a" {
		t.Errorf("the form shows Feishu id %q, want ou_7f3a", v)
	}
	if doc.Find(`[data-testid=notice]`).Length() != 1 {
		t.Error("no notice that the ids are saved")
	}
	w := b.Form("/account/chat", url.Values{"chat_dingtalk": {"13800000000"}, "chat_feishu": {"<at id=all></at>"}})
	field, _ := webtest.DocOf(t, w.Result()).Find(`[data-testid=chat-error]`).Attr("data-field")
	if w.Code != http.StatusUnprocessableEntity || field != "chat_feishu" {
		t.Errorf("a bad Feishu id = %d naming %q, want 422 naming chat_feishu", w.Code, field)
	}
	if got, _ := s.Store.ChatIDsOf(ctx, "ana"); got != want {
		t.Errorf("after the refused form stored %+v, want %+v unchanged", got, want)
	}
}
