package projects_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

func TestProjectReclaimAPI(t *testing.T) {
	w := webtest.NewRoleWorld(t)
	call := func(method, path, role, body string) (int, string) {
		req, _ := http.NewRequest(method, w.Srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+w.Tokens[role])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name, role, path, body string
		want                   int
	}{
		{"member may not", "member", "/api/v1/projects/1/reclaim", `{"never":true}`, http.StatusForbidden},
		{"finance may not", "finance", "/api/v1/projects/1/reclaim", `{"never":true}`, http.StatusForbidden},
		{"idle under a minute", "lead", "/api/v1/projects/1/reclaim", `{"idle_s":30}`, http.StatusUnprocessableEntity},
		{"idle over 30 days", "lead", "/api/v1/projects/1/reclaim", `{"idle_s":2592001}`, http.StatusUnprocessableEntity},
		{"negative grace", "lead", "/api/v1/projects/1/reclaim", `{"grace_s":-60}`, http.StatusUnprocessableEntity},
		{"too many keeps", "lead", "/api/v1/projects/1/reclaim", `{"keeps_per_day":25}`, http.StatusUnprocessableEntity},
		{"a string", "lead", "/api/v1/projects/1/reclaim", `{"idle_s":"1h"}`, http.StatusBadRequest},
		{"unknown project", "lead", "/api/v1/projects/999/reclaim", `{"never":true}`, http.StatusNotFound},
		{"the lead sets it", "lead", "/api/v1/projects/1/reclaim", `{"idle_s":7200,"keeps_per_day":4,"never":true}`, http.StatusOK},
	}
	for _, tc := range tests {
		if got, body := call(http.MethodPost, tc.path, tc.role, tc.body); got != tc.want {
			t.Errorf("%s: POST %s as %s = %d %s, want %d", tc.name, tc.path, tc.role, got, body, tc.want)
		}
	}
	_, body := call(http.MethodGet, "/api/v1/projects", "member", "")
	var projects []struct {
		Reclaim models.ReclaimOverride `json:"reclaim"`
	}
	want := models.ReclaimOverride{Never: true, IdleS: 7200, KeepsPerDay: 4}
	if err := json.Unmarshal([]byte(body), &projects); err != nil || len(projects) != 1 || projects[0].Reclaim != want {
		t.Errorf("GET /api/v1/projects = %s, want reclaim %+v", body, want)
	}
}

func TestProjectReclaimForm(t *testing.T) {
	cfg := webtest.TestCfg()
	cfg.Location = time.UTC
	s := webtest.NewServerOn(t, webtest.NewStore(t), cfg)
	s.Projects("vision")
	ctx := context.Background()
	p, _ := s.Store.ProjectByName(ctx, "vision")
	form := url.Values{"idle_min": {"90"}, "keeps_per_day": {"3"}, "grace_min": {""}}.Encode()
	hdr := []string{"Content-Type", "application/x-www-form-urlencoded"}
	r := s.Post("/projects/"+webtest.IDStr(p.ID)+"/reclaim", form, hdr...)
	if r.Code != http.StatusSeeOther {
		t.Fatalf("POST the reclaim form = %d %s, want 303", r.Code, r.Body)
	}
	got, _ := s.Store.ProjectByName(ctx, "vision")
	if want := (models.ReclaimOverride{IdleS: 5400, KeepsPerDay: 3}); got.Reclaim != want {
		t.Errorf("override after the form = %+v, want %+v", got.Reclaim, want)
	}
	page := s.Get("/projects")
	if !strings.Contains(page.Body.String(), `data-testid="reclaim-form"`) || !strings.Contains(page.Body.String(), `value="90"`) {
		t.Errorf("GET /projects shows no reclaim form with the idle time 90")
	}
	bad := url.Values{"idle_min": {"soon"}}.Encode()
	if r := s.Post("/projects/"+webtest.IDStr(p.ID)+"/reclaim", bad, hdr...); r.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body.String(), `data-testid="reclaim-error"`) {
		t.Errorf("POST a bad reclaim form = %d, want 422 with the error on the page", r.Code)
	}
}

// TestIdleTaskKeepFollowsTheProject: a keep holds the cards as long as the task's project
// says, as often a day as it says.
func TestIdleTaskKeepFollowsTheProject(t *testing.T) {
	w := webtest.NewIdleWorld(t)
	ctx := context.Background()
	p, _ := w.Store.ProjectByName(ctx, "vision")
	if err := w.Store.SetReclaimOverride(ctx, "lead", p.ID, models.ReclaimOverride{KeepForS: 1800, KeepsPerDay: 1}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	r := w.Post(w.Path("keep"), "", webtest.Bearer(w.Alice)...)
	if got := webtest.Decode[map[string]any](t, r)["kept_until"]; r.Code != http.StatusOK || got != webtest.T0.Add(30*time.Minute).Format(time.RFC3339) {
		t.Errorf("keep = %d %v, want kept until %s", r.Code, got, webtest.T0.Add(30*time.Minute))
	}
	if r := w.Post(w.Path("keep"), "", webtest.Bearer(w.Alice)...); r.Code != http.StatusConflict {
		t.Errorf("second keep of the day = %d %s, want 409", r.Code, r.Body)
	}
}
