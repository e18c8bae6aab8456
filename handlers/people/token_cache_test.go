package people_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// A script's token and its user's project roles are remembered between requests
// (models.authTTL) and lose their power at once on this server: a member a lead removes is
// refused their next submit, and a token revoked through the API its next request.
func TestRemovedAndRevokedLoseAccessAtOnce(t *testing.T) {
	s := webtest.NewServer(t)
	s.Register(webtest.Node("gpu-00").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	s.Projects("vision")
	lead := s.MemberAs("lin", "vision", models.ProjectRoleLead)
	bob := s.Member("bob", "vision")
	p, err := s.Store.ProjectByName(context.Background(), "vision")
	if err != nil {
		t.Fatal(err)
	}
	body := webtest.TaskBody(map[string]string{"owner": `"bob"`})
	submit := func() *http.Response {
		t.Helper()
		return s.Post("/api/v1/tasks", body, webtest.Bearer(bob)...).Result()
	}
	setRole := func(role string) {
		t.Helper()
		w := s.Post(fmt.Sprintf("/api/v1/projects/%d/members", p.ID), webtest.MustJSON(t, api.Membership{User: "bob", Role: role}), webtest.Bearer(lead)...)
		if w.Code != http.StatusNoContent {
			t.Fatalf("set bob's role to %q = %d %s", role, w.Code, w.Body)
		}
	}
	for range 2 { // read, then remembered
		if r := submit(); r.StatusCode != http.StatusCreated {
			t.Fatalf("bob's submit = %d, want 201", r.StatusCode)
		}
	}
	setRole("")
	if r := submit(); r.StatusCode != http.StatusForbidden {
		t.Errorf("bob's submit right after his removal = %d, want 403", r.StatusCode)
	}
	setRole(models.ProjectRoleMember)
	if r := submit(); r.StatusCode != http.StatusCreated {
		t.Fatalf("bob's submit after he is a member again = %d, want 201", r.StatusCode)
	}
	tokens := webtest.Decode[[]api.Token](t, s.Get("/api/v1/tokens", webtest.Bearer(bob)...))
	if len(tokens) != 1 {
		t.Fatalf("bob's tokens = %v, want one", tokens)
	}
	if w := s.Post(fmt.Sprintf("/api/v1/tokens/%d/revoke", tokens[0].ID), "", webtest.Bearer(bob)...); w.Code != http.StatusNoContent {
		t.Fatalf("revoke = %d %s", w.Code, w.Body)
	}
	if r := submit(); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("a submit with the token just revoked = %d, want 401", r.StatusCode)
	}
}
