// The access tests' world: one user per role, each with an API token, over a real server.

package webtest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
)

// RoleWorld is a server with one user per role, each with an API token: admin, a lead and a
// member of project "vision", finance and viewer. Unlike Server it listens on a real port,
// with the clock fixed at T0.
type RoleWorld struct {
	Srv    *httptest.Server  // the running server, closed when the test ends
	Store  *models.Store     // the store under it
	Tokens map[string]string // role name ("admin", "lead", "member", "finance", "viewer") → API token
}

// NewRoleWorld starts a RoleWorld over a fresh SQLite store.
func NewRoleWorld(t *testing.T) RoleWorld {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	p, _ := s.EnsureProject(ctx, "vision", now)
	w := RoleWorld{Store: s, Tokens: map[string]string{}}
	for _, u := range []struct{ name, role, project string }{
		{"admin", models.RoleAdmin, ""}, {"lead", models.RoleUser, models.ProjectRoleLead},
		{"member", models.RoleUser, models.ProjectRoleMember}, {"finance", models.RoleFinance, ""},
		{"viewer", models.RoleViewer, ""},
	} {
		user, err := s.CreateUser(ctx, u.name, "pw-"+u.name, u.role, now)
		if err != nil {
			t.Fatal(err)
		}
		if u.project != "" {
			s.SetMember(ctx, p.ID, user.ID, u.project)
		}
		tok, _, _ := s.CreateAPIToken(ctx, user.ID, "test", models.ScopeWrite, now)
		w.Tokens[u.name] = tok
	}
	h := web.NewAreas(s, &FakeSched{Loop: scheduler.NewLoop(s, scheduler.LoopConfig{Now: func() time.Time { return now }})}, handlers.Config{JoinToken: "join", Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: time.Minute}, func() time.Time { return now })
	w.Srv = httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(w.Srv.Close)
	return w
}
