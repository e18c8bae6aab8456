package board_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// sharedServer is the board fleet on a server whose board renders are shared for two
// seconds, as kashi serve's, with a member alice beside the admin tester.
func sharedServer(t *testing.T) (*webtest.Server, map[string]webtest.Registered) {
	t.Helper()
	cfg := webtest.TestCfg()
	cfg.BoardShare = 2 * time.Second
	s := webtest.NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	nodes := boardFleet(s)
	if _, err := s.Store.CreateUser(context.Background(), "alice", "pw-alice", models.RoleUser, webtest.T0); err != nil {
		t.Fatal(err)
	}
	return s, nodes
}

// cardUtil is the utilization text of a card on the board's grid (HTMX), "" when absent.
func cardUtil(t *testing.T, body, uuid string) string {
	t.Helper()
	return strings.TrimSpace(webtest.Parse(t, body).Find(`[data-testid="gpu-card"][data-uuid="` + uuid + `"] .metric .v`).First().Text())
}

// TestBoardSharedRender: viewers of a view between two changes get the same render (its ETag
// lets an unchanged refresh answer 304), and a new reading shows on the next request at
// once, as it does in the API: a shared render is never older than the data.
func TestBoardSharedRender(t *testing.T) {
	s, nodes := sharedServer(t)
	first := s.Get("/", "HX-Request", "true")
	if first.Code != http.StatusOK {
		t.Fatalf("GET / = %d", first.Code)
	}
	if got := cardUtil(t, first.Body.String(), "GPU-a100-02-1"); got != "0%" {
		t.Fatalf("card GPU-a100-02-1 shows %q, want 0%%", got)
	}
	s.SetNow(webtest.T0.Add(time.Second))
	again := s.Get("/", "HX-Request", "true")
	if again.Body.String() != first.Body.String() || again.Header().Get("ETag") != first.Header().Get("ETag") {
		t.Errorf("GET / of the same data within the interval is a new render; want the shared one")
	}
	if w := s.Get("/", "HX-Request", "true", "If-None-Match", first.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Errorf("GET / with the shared render's ETag = %d, want 304", w.Code)
	}
	s.PostSamples(nodes["a100-02"].Token, webtest.Sample("GPU-a100-02-1", webtest.T0, 77, 9000))
	if got := cardUtil(t, s.Get("/", "HX-Request", "true").Body.String(), "GPU-a100-02-1"); got != "77%" {
		t.Errorf("after a new reading card GPU-a100-02-1 shows %q, want 77%% as the API does", got)
	}
}

// TestBoardSharedNoLeak: a render shared between viewers carries nothing of the viewer who
// caused it. The admin looks first (cards with their UUIDs, the admin's name and CSRF token in
// the page), then a member at the same instant: the member's page has the member's name
// and token, no UUID and nothing of the admin's; languages are not mixed either.
func TestBoardSharedNoLeak(t *testing.T) {
	s, _ := sharedServer(t)
	admin := s.LogIn("tester", "pw-tester", "10.0.0.1")
	member := s.LogIn("alice", "pw-alice", "10.0.0.2")
	for _, path := range []string{"/", "/?view=grid"} {
		for _, hx := range []bool{false, true} {
			get := func(b *webtest.Session) string {
				if hx {
					return b.Get(path, "HX-Request", "true").Body.String()
				}
				return b.Get(path).Body.String()
			}
			a, m := get(admin), get(member)
			if !strings.Contains(a, `data-uuid="GPU-a100-01-0"`) && path == "/" {
				t.Errorf("%s (hx %v): the admin's board has no UUIDs", path, hx)
			}
			for _, leak := range []string{"GPU-a100-01-0", admin.Cookie("_csrf"), "tester"} {
				if strings.Contains(m, leak) {
					t.Errorf("%s (hx %v): the member's board holds the admin's %q", path, hx, leak)
				}
			}
			if !hx && (!strings.Contains(m, member.Cookie("_csrf")) || !strings.Contains(m, "alice")) {
				t.Errorf("%s: the member's page lacks the member's name or CSRF token", path)
			}
		}
	}
	en := s.Get("/", "Accept-Language", "en").Body.String()
	zh := s.Get("/", "Accept-Language", "zh-CN").Body.String()
	if !strings.Contains(en, "Occupancy board") || !strings.Contains(zh, "占用看板") || strings.Contains(zh, "Occupancy board") {
		t.Errorf("the board's languages are mixed between shared renders")
	}
}
