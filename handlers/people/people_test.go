package people_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/web/webtest"
)

func TestUsersPage(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	if r := w.As("finance", "/people"); r.Code != http.StatusForbidden {
		t.Errorf("GET /people as finance = %d, want 403", r.Code)
	}
	doc := webtest.DocOf(t, w.Get("/people").Result())
	if n := doc.Find(`[data-testid=user-row]`).Length(); n != 5 {
		t.Errorf("users listed = %d, want 5", n)
	}
	if doc.Find(`[data-testid=user-row][data-user=tester] [data-testid=disable-button]`).Length() != 0 {
		t.Error("the admin may disable themselves")
	}
	for field, v := range map[string]url.Values{
		"name":     {"name": {"bad name"}, "role": {"user"}, "password": {"pw-ok"}},
		"role":     {"name": {"ok"}, "role": {"king"}, "password": {"pw-ok"}},
		"password": {"name": {"ok"}, "role": {"user"}, "password": {"x"}},
	} {
		r := w.Form("/people", v)
		if f, _ := webtest.DocOf(t, r).Find(`[data-testid=user-form-error]`).Attr("data-field"); r.StatusCode != http.StatusUnprocessableEntity || f != field {
			t.Errorf("add user %v = %d naming %q, want 422 naming %s", v, r.StatusCode, f, field)
		}
	}
	r := w.Form("/people", url.Values{"name": {"bo"}, "role": {"finance"}, "password": {"pw-bo"}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("add user = %d", r.StatusCode)
	}
	if u, err := w.Store.UserByName(ctx, "bo"); err != nil || u.Role != "finance" {
		t.Errorf("bo = %+v, %v", u, err)
	}
	if r := w.Form("/people/bo/state", url.Values{"disabled": {"true"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable = %d", r.StatusCode)
	}
	doc = webtest.DocOf(t, w.Get("/people?disabled=bo").Result())
	if doc.Find(`[data-testid=user-row][data-user=bo] [data-testid=disabled]`).Length() != 1 || doc.Find(`[data-testid=notice]`).Length() != 1 {
		t.Error("bo not shown disabled, or no notice")
	}
	if rec := w.Login("bo", "pw-bo", "10.0.0.1"); rec.Code == http.StatusSeeOther {
		t.Error("a disabled user logs in")
	}
	if r := w.Form("/people/bo/state", url.Values{"disabled": {"maybe"}}); r.StatusCode != http.StatusBadRequest {
		t.Errorf("disabled=maybe = %d, want 400", r.StatusCode)
	}
	if r := w.Form("/people/nobody/state", url.Values{"disabled": {"true"}}); r.StatusCode != http.StatusNotFound {
		t.Errorf("disable nobody = %d, want 404", r.StatusCode)
	}
	r = w.Form("/people/member/password", url.Values{"password": {"x"}})
	if f, _ := webtest.DocOf(t, r).Find(`[data-testid=user-error]`).Attr("data-field"); r.StatusCode != http.StatusUnprocessableEntity || f != "password" {
		t.Errorf("short reset = %d naming %q", r.StatusCode, f)
	}
	if r := w.Form("/people/member/password", url.Values{"password": {"fresh-pw"}}); r.StatusCode != http.StatusSeeOther {
		t.Errorf("reset = %d", r.StatusCode)
	}
	if _, err := w.Store.Authenticate(ctx, "member", "fresh-pw"); err != nil {
		t.Errorf("login after reset: %v", err)
	}
	if r := w.FormAs("lead", "/people/viewer/password", url.Values{"password": {"mine-now"}}); r.StatusCode != http.StatusForbidden {
		t.Errorf("a lead resets a password = %d, want 403", r.StatusCode)
	}
}

func TestAccountPassword(t *testing.T) {
	w := webtest.NewBillWorld(t)
	doc := webtest.DocOf(t, w.Get("/account", webtest.Bearer(w.Tokens["viewer"])...).Result())
	if doc.Find(`[data-testid=password-form]`).Length() != 1 {
		t.Fatal("no password form")
	}
	b := w.LogIn("viewer", "pw-viewer", "192.0.2.1")
	r := b.Form("/account/password", url.Values{"current": {"wrong"}, "password": {"new-pw"}})
	if f, _ := webtest.DocOf(t, r.Result()).Find(`[data-testid=password-error]`).Attr("data-field"); r.Code != http.StatusUnprocessableEntity || f != "current" {
		t.Errorf("wrong current = %d naming %q", r.Code, f)
	}
	r = b.Form("/account/password", url.Values{"current": {"pw-viewer"}, "password": {"new-pw"}})
	if loc := r.Header().Get("Location"); r.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/account") {
		t.Fatalf("change = %d → %q", r.Code, loc)
	}
	if _, err := w.Store.Authenticate(context.Background(), "viewer", "new-pw"); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
}
