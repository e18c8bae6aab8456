package people_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/handlers/people"
	"kashi/models"
	"kashi/web/webtest"
)

// A password is changed from a browser session only: a write API token is refused with 403
// and changes nothing, even with the right current password.
func TestPasswordChangeNeedsASession(t *testing.T) {
	s := webtest.NewServer(t)
	tok := writeToken(t, s, "ana")
	r := s.Form("/account/password", url.Values{"current": {"pw-ana"}, "password": {"taken-over"}}, webtest.Bearer(tok)...)
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("change with a write token = %d, want 403", r.StatusCode)
	}
	if _, err := s.Store.Authenticate(context.Background(), "ana", "taken-over"); err == nil {
		t.Error("a token changed the password")
	}
	b := s.LogIn("ana", "pw-ana", "192.0.2.1")
	if w := b.Form("/account/password", url.Values{"current": {"pw-ana"}, "password": {"mine-now"}}); w.Code != http.StatusSeeOther {
		t.Errorf("change from a session = %d, want 303", w.Code)
	}
}

// The current password is checked behind the login throttle: after five wrong ones the form
// is refused with 429 and the wait, the right one too, and a login of the account waits as
// well; after the wait the right one changes the password.
func TestPasswordChangeThrottled(t *testing.T) {
	s := webtest.NewServer(t)
	writeToken(t, s, "ana")
	b := s.LogIn("ana", "pw-ana", "192.0.2.1")
	wrong := url.Values{"current": {"guess"}, "password": {"mine-now"}}
	for i := range people.AccountFailures {
		if w := b.Form("/account/password", wrong); w.Code != http.StatusUnprocessableEntity {
			t.Fatalf("wrong current password %d = %d, want 422", i+1, w.Code)
		}
	}
	for _, current := range []string{"guess", "pw-ana"} {
		w := b.Form("/account/password", url.Values{"current": {current}, "password": {"mine-now"}})
		field, _ := webtest.DocOf(t, w.Result()).Find(`[data-testid=password-error]`).Attr("data-field")
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "180" || field != "current" {
			t.Errorf("current %q while throttled = %d Retry-After %q naming %q, want 429 after 180 s naming current",
				current, w.Code, w.Header().Get("Retry-After"), field)
		}
	}
	if w := s.Login("ana", "pw-ana", "192.0.2.9"); w.Code != http.StatusTooManyRequests {
		t.Errorf("login of the account while its password form is throttled = %d, want 429", w.Code)
	}
	s.SetNow(webtest.T0.Add(people.AccountRefill))
	if w := b.Form("/account/password", url.Values{"current": {"pw-ana"}, "password": {"mine-now"}}); w.Code != http.StatusSeeOther {
		t.Errorf("right current password after the wait = %d, want 303", w.Code)
	}
}

// writeToken creates the user name (password pw-name) and returns a write API token of theirs.
func writeToken(t *testing.T, s *webtest.Server, name string) string {
	t.Helper()
	ctx := context.Background()
	u, err := s.Store.CreateUser(ctx, name, "pw-"+name, models.RoleUser, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := s.Store.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A password change ends every other session of the user (a browser left logged in
// elsewhere, or one an attacker holds); the session it came from goes on, and so do the
// user's API tokens.
func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		tok := writeToken(t, s, "ana")
		here, there := s.LogIn("ana", "pw-ana", "192.0.2.1"), s.LogIn("ana", "pw-ana", "192.0.2.2")
		if w := here.Form("/account/password", url.Values{"current": {"pw-ana"}, "password": {"mine-now"}}); w.Code != http.StatusSeeOther {
			t.Fatalf("change = %d, want 303", w.Code)
		}
		if w := there.Get("/account"); w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
			t.Errorf("the other session after the change: GET /account = %d → %q, want the login form", w.Code, w.Header().Get("Location"))
		}
		if w := here.Get("/account"); w.Code != http.StatusOK {
			t.Errorf("the session that changed it: GET /account = %d, want 200", w.Code)
		}
		if w := s.Get("/api/v1/me", webtest.Bearer(tok)...); w.Code != http.StatusOK {
			t.Errorf("the user's API token after the change = %d, want 200", w.Code)
		}
	})
}

// An admin's reset of a password ends the user's sessions and revokes their API tokens.
func TestPasswordResetEndsSessionsAndTokens(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		tok := writeToken(t, s, "ana")
		b := s.LogIn("ana", "pw-ana", "192.0.2.1")
		if r := s.Form("/people/ana/password", url.Values{"password": {"fresh-pw"}}); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("reset = %d, want 303", r.StatusCode)
		}
		if w := b.Get("/account"); w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
			t.Errorf("the user's session after the reset: GET /account = %d → %q, want the login form", w.Code, w.Header().Get("Location"))
		}
		if w := s.Get("/api/v1/me", webtest.Bearer(tok)...); w.Code != http.StatusUnauthorized {
			t.Errorf("the user's API token after the reset = %d, want 401", w.Code)
		}
	})
}
