package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
)

// roleWorld is a server with one user per role, each with an API token: admin, a lead and a
// member of project "vision", finance and viewer.
type roleWorld struct {
	srv    *echoServer
	store  *models.Store
	tokens map[string]string
}

type echoServer = httptest.Server

func newRoleWorld(t *testing.T) roleWorld {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	p, _ := s.EnsureProject(ctx, "vision", now)
	w := roleWorld{store: s, tokens: map[string]string{}}
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
		w.tokens[u.name] = tok
	}
	h := web.NewAreas(s, &fakeSched{loop: scheduler.NewLoop(s, scheduler.LoopConfig{Now: func() time.Time { return now }})}, handlers.Config{JoinToken: "join", Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits, StaleAfter: time.Minute}, func() time.Time { return now })
	w.srv = httptest.NewServer(web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(w.srv.Close)
	return w
}

// TestAccessPolicy walks every route of the table for every role and for no login and checks
// that the server lets through exactly who the route's access level allows.
func TestAccessPolicy(t *testing.T) {
	w := newRoleWorld(t)
	roles := []string{"", "admin", "lead", "member", "finance", "viewer"}
	principal := func(role string) *handlers.Principal {
		switch role {
		case "":
			return nil
		case "admin":
			return &handlers.Principal{User: models.User{Role: models.RoleAdmin}}
		case "lead":
			return &handlers.Principal{User: models.User{Role: models.RoleUser}, Projects: map[int64]string{1: models.ProjectRoleLead}}
		case "member":
			return &handlers.Principal{User: models.User{Role: models.RoleUser}, Projects: map[int64]string{1: models.ProjectRoleMember}}
		}
		return &handlers.Principal{User: models.User{Role: role}}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, r := range web.Routes(&web.Areas{}) {
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", "999"), "*", "kashi.css")
		for _, role := range roles {
			name := role
			if name == "" {
				name = "nobody"
			}
			t.Run(r.Method+" "+r.Path+" as "+name, func(t *testing.T) {
				req, _ := http.NewRequest(r.Method, w.srv.URL+path, strings.NewReader("{}"))
				req.Header.Set("Content-Type", "application/json")
				if role != "" {
					req.Header.Set("Authorization", "Bearer "+w.tokens[role])
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				allowed := principal(role).Allows(r.Access)
				refused := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden ||
					(resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), "/login?"))
				if r.Path == "/login" || r.Path == "/logout" || strings.HasPrefix(r.Path, "/api/v1/agent/") {
					return // their own credentials (password, join or node token) are tested elsewhere
				}
				if allowed == refused {
					t.Errorf("%s %s as %s = %d, want allowed=%v", r.Method, path, name, resp.StatusCode, allowed)
				}
				if resp.StatusCode == http.StatusInternalServerError {
					t.Errorf("%s %s as %s = 500", r.Method, path, name)
				}
			})
		}
	}
}
