// Users and tokens made through the store, and a node registering again.

package webtest

import (
	"context"
	"net/http"

	"kashi/api"
	"kashi/models"
)

// Member creates a user of role "user" who is a plain member of project and returns an API
// token of theirs.
func (s *Server) Member(name, project string) string {
	s.Tb.Helper()
	return s.MemberAs(name, project, models.ProjectRoleMember)
}

// MemberAs creates a user of role "user" with a project role in project and returns an API
// token of theirs.
func (s *Server) MemberAs(name, project, role string) string {
	s.Tb.Helper()
	ctx := context.Background()
	u, err := s.Store.CreateUser(ctx, name, "pw-"+name, models.RoleUser, T0)
	if err != nil {
		s.Tb.Fatalf("CreateUser(%q): %v", name, err)
	}
	p, err := s.Store.ProjectByName(ctx, project)
	if err != nil {
		s.Tb.Fatalf("ProjectByName(%q): %v", project, err)
	}
	if err := s.Store.SetMember(ctx, p.ID, u.ID, role); err != nil {
		s.Tb.Fatalf("SetMember: %v", err)
	}
	tok, _, err := s.Store.CreateAPIToken(ctx, u.ID, "test", models.ScopeWrite, T0)
	if err != nil {
		s.Tb.Fatalf("CreateAPIToken: %v", err)
	}
	return tok
}

// Reregister posts the registration of a registered hostname with the join token and the
// node's current token as proof, and fails the test unless it is 200.
func (s *Server) Reregister(n *NodeB, nodeToken string) Registered {
	s.Tb.Helper()
	w := s.Post(api.PathRegister, MustJSON(s.Tb, n.R), "Authorization", "Bearer "+JoinToken, "X-Kashi-Node-Token", nodeToken)
	if w.Code != http.StatusOK {
		s.Tb.Fatalf("POST %s %s again = %d %s, want 200", api.PathRegister, n.R.Hostname, w.Code, w.Body)
	}
	resp := Decode[api.RegisterResponse](s.Tb, w)
	return Registered{ID: resp.NodeID, Token: resp.Token}
}

// UserToken creates a user of role and returns an API token of theirs.
func (s *Server) UserToken(name, role string) string {
	s.Tb.Helper()
	ctx := context.Background()
	u, err := s.Store.CreateUser(ctx, name, "pw-"+name, role, T0)
	if err != nil {
		s.Tb.Fatalf("CreateUser(%q): %v", name, err)
	}
	tok, _, err := s.Store.CreateAPIToken(ctx, u.ID, "test", models.ScopeRead, T0)
	if err != nil {
		s.Tb.Fatalf("CreateAPIToken: %v", err)
	}
	return tok
}
