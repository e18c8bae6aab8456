package web_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// TestIdempotencyKeyScopedToCaller: a key another caller used never returns their task; each
// caller gets their own, and a key reused with another body is refused.
func TestIdempotencyKeyScopedToCaller(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		webtest.TaskFleet(s)
		s.Projects("audio")
		alice, bob, carol := s.Member("alice", "vision"), s.Member("bob", "vision"), s.Member("carol", "audio")
		key := []string{"Idempotency-Key", "nightly"}
		secret := webtest.TaskBody(map[string]string{"owner": `""`, "env": `{"HF_TOKEN":"hf_secret"}`})
		first := s.Post("/api/v1/tasks", secret, append(webtest.Bearer(alice), key...)...)
		if first.Code != http.StatusCreated {
			t.Fatalf("alice's POST = %d %s, want 201", first.Code, first.Body)
		}
		mine := webtest.TaskBody(map[string]string{"owner": `""`})
		second := s.Post("/api/v1/tasks", mine, append(webtest.Bearer(bob), key...)...)
		if second.Code != http.StatusCreated {
			t.Fatalf("bob's POST with alice's key = %d %s, want 201 and a task of his own", second.Code, second.Body)
		}
		got := webtest.Decode[map[string]any](t, second)
		if diff := cmp.Diff(map[string]any{"id": 2.0, "owner": "bob"}, map[string]any{"id": got["id"], "owner": got["owner"]}); diff != "" {
			t.Errorf("bob's task (-want +got):\n%s", diff)
		}
		other := webtest.TaskBody(map[string]string{"owner": `""`, "project": `"audio"`})
		if w := s.Post("/api/v1/tasks", other, append(webtest.Bearer(carol), key...)...); w.Code != http.StatusCreated {
			t.Errorf("carol's POST to audio with the same key = %d %s, want 201", w.Code, w.Body)
		}
		again := s.Post("/api/v1/tasks", secret, append(webtest.Bearer(alice), key...)...)
		if again.Code != http.StatusOK || webtest.Decode[map[string]any](t, again)["id"] != 1.0 {
			t.Errorf("alice's repeat = %d %s, want 200 with task 1", again.Code, again.Body)
		}
		changed := webtest.TaskBody(map[string]string{"owner": `""`, "gpus": "2"})
		w := s.Post("/api/v1/tasks", changed, append(webtest.Bearer(alice), key...)...)
		webtest.WantAPIError(t, "alice's key with another body", w, http.StatusUnprocessableEntity, "Idempotency-Key")
		if n := s.TaskCount(); n != 3 {
			t.Errorf("tasks stored = %d, want 3", n)
		}
	})
}
