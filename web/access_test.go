package web_test

import (
	"net/http"
	"strings"
	"testing"

	"kashi/handlers"
	"kashi/models"
	"kashi/web"
	"kashi/web/webtest"
)

// TestAccessPolicy walks every route of the table for every role and for no login and checks
// that the server lets through exactly who the route's access level allows.
func TestAccessPolicy(t *testing.T) {
	w := webtest.NewRoleWorld(t)
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
				req, _ := http.NewRequest(r.Method, w.Srv.URL+path, strings.NewReader("{}"))
				req.Header.Set("Content-Type", "application/json")
				if role != "" {
					req.Header.Set("Authorization", "Bearer "+w.Tokens[role])
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
				if (r.Path == "/account/password" || r.Path == "/account/chat") && role != "" {
					return // a browser session only, never a token (TestPasswordChangeNeedsASession, TestChatIDsForm)
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
