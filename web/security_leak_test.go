package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web"
	"kashi/web/webtest"
)

// TestNoJSONFieldLeaksAnotherProject walks every JSON route that reads, as a lead and as a
// member of another project, as finance and as a viewer, and looks for the marks of project
// vision's task and request: its command, environment, workdir, data check and request
// reason. None of them may show.
func TestNoJSONFieldLeaksAnotherProject(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	s.Projects("audio")
	ctx := context.Background()
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	tokens := map[string]string{"audio lead": s.MemberAs("ada", "audio", models.ProjectRoleLead),
		"audio member": s.Member("olga", "audio"), "vision member": s.Member("vic", "vision")}
	for name, role := range map[string]string{"finance": models.RoleFinance, "viewer": models.RoleViewer} {
		u, _ := s.Store.CreateUser(ctx, name, "pw-"+name, role, webtest.T0)
		tokens[name], _, _ = s.Store.CreateAPIToken(ctx, u.ID, "t", models.ScopeRead, webtest.T0)
	}
	w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"command": `["python","canary-cmd.py"]`, "env": `{"CANARY_ENV":"1"}`,
		"workdir": `"/canary-dir"`, "data_ready": "false", "data_check": `{"path":"/data/canary-path"}`}))
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
	}
	if _, err := s.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: vision.ID, MaxGPUs: 4, BudgetCardHours: 10,
		StartsAt: webtest.T0.Add(-time.Hour), EndsAt: webtest.T0.Add(time.Hour)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	if w := s.Post("/api/v1/requests", `{"project":"vision","kind":"budget","change":{"add_card_hours":5},"reason":"canary-reason"}`,
		webtest.Bearer(tokens["vision member"])...); w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests = %d %s", w.Code, w.Body)
	}
	delete(tokens, "vision member")
	path := strings.NewReplacer(":id", "1", ":project", "vision", ":month", "2026-03", ":name", "a100")
	for _, r := range web.Routes(&web.Areas{}) {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.Path, "/api/v1/") || strings.HasPrefix(r.Path, "/api/v1/agent/") {
			continue
		}
		p := path.Replace(r.Path)
		for who, tok := range tokens {
			w := s.Get(p, webtest.Bearer(tok)...)
			if body := strings.ToLower(w.Body.String()); strings.Contains(body, "canary") {
				t.Errorf("GET %s as %s = %d shows project vision's data: %s", p, who, w.Code, w.Body)
			}
		}
	}
}
