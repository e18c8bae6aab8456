package web_test

import (
	"context"
	"net/http"

	"kashi/api"
	"kashi/models"
)

// member creates a user of role "user" who is a plain member of project and returns an API
// token of theirs.
func (s *server) member(name, project string) string {
	s.tb.Helper()
	return s.memberAs(name, project, models.ProjectRoleMember)
}

// memberAs creates a user of role "user" with a project role in project and returns an API
// token of theirs.
func (s *server) memberAs(name, project, role string) string {
	s.tb.Helper()
	ctx := context.Background()
	u, err := s.store.CreateUser(ctx, name, "pw-"+name, models.RoleUser, t0)
	if err != nil {
		s.tb.Fatalf("CreateUser(%q): %v", name, err)
	}
	p, err := s.store.ProjectByName(ctx, project)
	if err != nil {
		s.tb.Fatalf("ProjectByName(%q): %v", project, err)
	}
	if err := s.store.SetMember(ctx, p.ID, u.ID, role); err != nil {
		s.tb.Fatalf("SetMember: %v", err)
	}
	tok, _, err := s.store.CreateAPIToken(ctx, u.ID, "test", models.ScopeWrite, t0)
	if err != nil {
		s.tb.Fatalf("CreateAPIToken: %v", err)
	}
	return tok
}

// reregister posts the registration of a registered hostname with the join token and the
// node's current token as proof, and fails the test unless it is 200.
func (s *server) reregister(n *nodeB, nodeToken string) registered {
	s.tb.Helper()
	w := s.post(api.PathRegister, mustJSON(s.tb, n.r), "Authorization", "Bearer "+joinToken, "X-Kashi-Node-Token", nodeToken)
	if w.Code != http.StatusOK {
		s.tb.Fatalf("POST %s %s again = %d %s, want 200", api.PathRegister, n.r.Hostname, w.Code, w.Body)
	}
	resp := decode[api.RegisterResponse](s.tb, w)
	return registered{ID: resp.NodeID, Token: resp.Token}
}

// userToken creates a user of role and returns an API token of theirs.
func (s *server) userToken(name, role string) string {
	s.tb.Helper()
	ctx := context.Background()
	u, err := s.store.CreateUser(ctx, name, "pw-"+name, role, t0)
	if err != nil {
		s.tb.Fatalf("CreateUser(%q): %v", name, err)
	}
	tok, _, err := s.store.CreateAPIToken(ctx, u.ID, "test", models.ScopeRead, t0)
	if err != nil {
		s.tb.Fatalf("CreateAPIToken: %v", err)
	}
	return tok
}
