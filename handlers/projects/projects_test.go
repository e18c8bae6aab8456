package projects_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"kashi/web/webtest"
)

func TestProjectTags(t *testing.T) {
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
	tests := map[string]struct {
		role, body string
		want       int
	}{
		"lead sets tags":    {"lead", `{"tags":["cv","paper 2026","cv"]}`, http.StatusNoContent},
		"member may not":    {"member", `{"tags":["x"]}`, http.StatusForbidden},
		"a tag with markup": {"lead", `{"tags":["<b>"]}`, http.StatusUnprocessableEntity},
		"too many":          {"admin", `{"tags":["a","b","c","d","e","f","g","h","i","j","k"]}`, http.StatusUnprocessableEntity},
		"tags not a list":   {"admin", `{"tags":"cv"}`, http.StatusBadRequest},
		"unknown project":   {"lead", `{"tags":["x"]}`, http.StatusNoContent},
	}
	for name, tc := range tests {
		path := "/api/v1/projects/1/tags"
		if name == "unknown project" {
			path, tc.want = "/api/v1/projects/999/tags", http.StatusNotFound
		}
		if got, body := call(http.MethodPost, path, tc.role, tc.body); got != tc.want {
			t.Errorf("%s: POST %s as %s = %d %s, want %d", name, path, tc.role, got, body, tc.want)
		}
	}
	_, body := call(http.MethodGet, "/api/v1/projects", "member", "")
	var projects []struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(body), &projects); err != nil || len(projects) != 1 ||
		strings.Join(projects[0].Tags, "|") != "cv|paper 2026" {
		t.Errorf("GET /api/v1/projects = %s, want vision tagged cv and paper 2026", body)
	}
}
