package board_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

func TestGPUsList(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		boardFleet(s)
		w := s.Get("/api/v1/gpus")
		if w.Code != http.StatusOK {
			t.Fatalf("GET /api/v1/gpus = %d %s, want 200", w.Code, w.Body)
		}
		list := webtest.Decode[[]map[string]any](t, w)
		if len(list) != 10 {
			t.Fatalf("GET /api/v1/gpus = %d GPUs, want 10", len(list))
		}
		byUUID := make(map[string]map[string]any)
		for _, g := range list {
			byUUID[g["uuid"].(string)] = g
		}
		ts := func(d time.Duration) string { return webtest.T0.Add(-d).Format(time.RFC3339) }
		want := map[string]map[string]any{
			"held and saturated": {
				"uuid": "GPU-a100-02-0", "node": "a100-02", "index": 0.0, "pool": "a100", "spec": "A100-80G",
				"memory_total_mib": 81920.0, "memory_used_mib": 80700.0, "util_pct": 99.0, "state": "busy",
				"task_id": 3.0, "project": "vision", "idle_since": nil, "updated_at": ts(time.Minute),
			},
			"held and idle": {
				"uuid": "GPU-a100-01-0", "node": "a100-01", "index": 0.0, "pool": "a100", "spec": "A100-80G",
				"memory_total_mib": 81920.0, "memory_used_mib": 2100.0, "util_pct": 0.0, "state": "idle",
				"task_id": 1.0, "project": "vision", "idle_since": ts(2 * time.Hour), "updated_at": ts(time.Minute),
			},
			"free": {
				"uuid": "GPU-a100-01-2", "node": "a100-01", "index": 2.0, "pool": "a100", "spec": "A100-80G",
				"memory_total_mib": 81920.0, "memory_used_mib": 0.0, "util_pct": 0.0, "state": "free",
				"task_id": nil, "project": nil, "idle_since": ts(3 * time.Hour), "updated_at": ts(time.Minute),
			},
			"never reported": {
				"uuid": "GPU-a100-01-3", "node": "a100-01", "index": 3.0, "pool": "a100", "spec": "A100-80G",
				"memory_total_mib": 81920.0, "memory_used_mib": 0.0, "util_pct": 0.0, "state": "stale",
				"task_id": nil, "project": nil, "idle_since": nil, "updated_at": nil,
			},
			"other spec": {
				"uuid": "GPU-h800-01-1", "node": "h800-01", "index": 1.0, "pool": "h800", "spec": "H800-80G",
				"memory_total_mib": 81559.0, "memory_used_mib": 500.0, "util_pct": 98.0, "state": "free",
				"task_id": nil, "project": nil, "idle_since": nil, "updated_at": ts(time.Minute),
			},
		}
		for name, w := range want {
			w["id"] = float64(s.GPUIDs(w["uuid"].(string))[0])
			t.Run(name, func(t *testing.T) {
				if diff := cmp.Diff(w, byUUID[w["uuid"].(string)]); diff != "" {
					t.Errorf("GET /api/v1/gpus %s (-want +got):\n%s", w["uuid"], diff)
				}
			})
		}
	})
}

func TestGPUsListFilters(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	tests := map[string]struct {
		query string
		want  []string
	}{
		"pool":             {query: "?pool=h800", want: []string{"GPU-h800-01-0", "GPU-h800-01-1"}},
		"spec":             {query: "?spec=H800-80G", want: []string{"GPU-h800-01-0", "GPU-h800-01-1"}},
		"project":          {query: "?project=vision", want: []string{"GPU-a100-01-0", "GPU-a100-01-1", "GPU-a100-02-0"}},
		"pool and project": {query: "?pool=h800&project=vision", want: []string{}},
		"unknown pool":     {query: "?pool=none", want: []string{}},
		"all": {query: "", want: []string{"GPU-a100-01-0", "GPU-a100-01-1", "GPU-a100-01-2", "GPU-a100-01-3",
			"GPU-a100-02-0", "GPU-a100-02-1", "GPU-a100-02-2", "GPU-a100-02-3", "GPU-h800-01-0", "GPU-h800-01-1"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Get("/api/v1/gpus" + tc.query)
			if w.Code != http.StatusOK {
				t.Fatalf("GET /api/v1/gpus%s = %d, want 200", tc.query, w.Code)
			}
			if body := w.Body.String(); len(tc.want) == 0 && body != "[]\n" {
				t.Errorf("GET /api/v1/gpus%s = %q, want []", tc.query, body)
			}
			got := []string{}
			for _, g := range webtest.Decode[[]struct{ UUID string }](t, w) {
				got = append(got, g.UUID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("GET /api/v1/gpus%s (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

// TestGPUUUIDsForAdminsOnly: a GPU's UUID, what a node names when it registers, is shown to
// admins only. Anyone else gets each GPU's id in GET /api/v1/gpus, and a board (both views), a
// node page and GPU pages without a UUID, whose links to the GPUs' pages work; a GPU page
// named by its UUID is not found for them. An admin sees the UUIDs and may name a GPU by one.
func TestGPUUUIDsForAdminsOnly(t *testing.T) {
	s := webtest.NewServer(t)
	nodes := boardFleet(s)
	s.Projects("vision")
	for who, tok := range map[string]string{"viewer": s.UserToken("vic", models.RoleViewer), "member": s.Member("mia", "vision")} {
		t.Run(who, func(t *testing.T) {
			get := func(path string) string {
				t.Helper()
				w := s.Get(path, webtest.Bearer(tok)...)
				if w.Code != http.StatusOK {
					t.Fatalf("GET %s as a %s = %d", path, who, w.Code)
				}
				if strings.Contains(w.Body.String(), "GPU-") {
					t.Errorf("GET %s as a %s shows a GPU's UUID", path, who)
				}
				return w.Body.String()
			}
			for _, g := range webtest.Decode[[]map[string]any](t, s.Get("/api/v1/gpus", webtest.Bearer(tok)...)) {
				if _, ok := g["uuid"]; ok || g["id"] == nil {
					t.Errorf("GET /api/v1/gpus as a %s has %v, want an id and no uuid", who, g)
				}
			}
			get("/api/v1/gpus")
			get("/?view=grid")
			get("/nodes/" + webtest.IDStr(nodes["a100-01"].ID))
			links := webtest.Attrs(webtest.Parse(t, get("/")), `[data-testid=card-gpu]`, "href")
			if len(links) != 10 {
				t.Fatalf("the board as a %s links %d cards, want 10", who, len(links))
			}
			for _, l := range links {
				get(l)
			}
			if w := s.Get("/gpus/GPU-a100-01-0", webtest.Bearer(tok)...); w.Code != http.StatusNotFound {
				t.Errorf("GET /gpus/GPU-a100-01-0 as a %s = %d, want 404", who, w.Code)
			}
		})
	}
	if webtest.GPUByUUID(t, s, "GPU-a100-01-0").UUID != "GPU-a100-01-0" {
		t.Error("GET /api/v1/gpus as an admin has no UUIDs")
	}
	doc := webtest.Parse(t, s.Get("/gpus/GPU-a100-01-0").Body.String())
	if got := doc.Find(`[data-testid=gpu-uuid]`).Text(); got != "GPU-a100-01-0" {
		t.Errorf("the GPU page named by UUID shows an admin %q, want the UUID", got)
	}
	if n := webtest.Parse(t, s.Get("/").Body.String()).Find(`[data-uuid]`).Length(); n != 10 {
		t.Errorf("an admin's board has %d cards with a UUID, want 10", n)
	}
}
