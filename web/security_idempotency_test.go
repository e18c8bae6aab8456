package web_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIdempotencyKeyScopedToCaller: a key another caller used never returns their task; each
// caller gets their own, and a key reused with another body is refused.
func TestIdempotencyKeyScopedToCaller(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		taskFleet(s)
		s.projects("audio")
		alice, bob, carol := s.member("alice", "vision"), s.member("bob", "vision"), s.member("carol", "audio")
		key := []string{"Idempotency-Key", "nightly"}
		secret := taskBody(map[string]string{"owner": `""`, "env": `{"HF_TOKEN":"hf_secret"}`})
		first := s.post("/api/v1/tasks", secret, append(bearer(alice), key...)...)
		if first.Code != http.StatusCreated {
			t.Fatalf("alice's POST = %d %s, want 201", first.Code, first.Body)
		}
		mine := taskBody(map[string]string{"owner": `""`})
		second := s.post("/api/v1/tasks", mine, append(bearer(bob), key...)...)
		if second.Code != http.StatusCreated {
			t.Fatalf("bob's POST with alice's key = %d %s, want 201 and a task of his own", second.Code, second.Body)
		}
		got := decode[map[string]any](t, second)
		if diff := cmp.Diff(map[string]any{"id": 2.0, "owner": "bob"}, map[string]any{"id": got["id"], "owner": got["owner"]}); diff != "" {
			t.Errorf("bob's task (-want +got):\n%s", diff)
		}
		other := taskBody(map[string]string{"owner": `""`, "project": `"audio"`})
		if w := s.post("/api/v1/tasks", other, append(bearer(carol), key...)...); w.Code != http.StatusCreated {
			t.Errorf("carol's POST to audio with the same key = %d %s, want 201", w.Code, w.Body)
		}
		again := s.post("/api/v1/tasks", secret, append(bearer(alice), key...)...)
		if again.Code != http.StatusOK || decode[map[string]any](t, again)["id"] != 1.0 {
			t.Errorf("alice's repeat = %d %s, want 200 with task 1", again.Code, again.Body)
		}
		changed := taskBody(map[string]string{"owner": `""`, "gpus": "2"})
		w := s.post("/api/v1/tasks", changed, append(bearer(alice), key...)...)
		wantAPIError(t, "alice's key with another body", w, http.StatusUnprocessableEntity, "Idempotency-Key")
		if n := s.taskCount(); n != 3 {
			t.Errorf("tasks stored = %d, want 3", n)
		}
	})
}
