package web_test

import (
	"net/http"
	"testing"

	"kashi/api"
)

// TestJoinTokenCannotHijackNodes: the shared join token registers new machines only; it
// neither takes over a registered hostname (with its assignments) nor moves a GPU a running
// task holds.
func TestJoinTokenCannotHijackNodes(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *server) {
		nodes := taskFleet(s)
		tk := s.create(task("secret-run").ready(), t0)
		s.place(tk, t0, "GPU-n1-0")

		hijack := node("n1").inPool("a100").cards(a100Name, a100MiB, 4)
		w := s.post(api.PathRegister, mustJSON(t, hijack.r), bearer(joinToken)...)
		wantAPIError(t, "re-register n1 with the join token only", w, http.StatusConflict, "hostname")
		if w := s.get(api.PathAssignments, bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Errorf("n1's own token after the attempt = %d, want 200", w.Code)
		}

		thief := node("evil").inPool("a100")
		thief.r.GPUs = []api.GPUInfo{{UUID: "GPU-n1-0", Index: 0, Name: a100Name, MemoryTotalMiB: a100MiB}}
		w = s.post(api.PathRegister, mustJSON(t, thief.r), bearer(joinToken)...)
		wantAPIError(t, "claim a held GPU from another node", w, http.StatusConflict, "gpus[0].uuid")
		if g := s.boardGPU("GPU-n1-0"); g.Hostname != "n1" {
			t.Errorf("GPU-n1-0 is on %q after the attempt, want n1", g.Hostname)
		}
		if w := s.post(api.PathRegister, mustJSON(t, node("fresh").inPool("a100").cards(a100Name, a100MiB, 1).r), bearer(joinToken)...); w.Code != http.StatusOK {
			t.Errorf("a new machine with the join token = %d %s, want 200", w.Code, w.Body)
		}
	})
}

// TestSingleUseJoinTokens: an admin issues a join token bound to a machine id; it registers
// that machine once (even over a registered hostname: the admin decided), and the shared
// token can be revoked.
func TestSingleUseJoinTokens(t *testing.T) {
	s := newServer(t)
	taskFleet(s)
	s.projects("audio")
	member := s.member("mia", "audio")
	if w := s.post("/api/v1/join-tokens", `{"machine_id":"m-1"}`, bearer(member)...); w.Code != http.StatusForbidden {
		t.Errorf("POST /api/v1/join-tokens as a member = %d, want 403", w.Code)
	}
	wantAPIError(t, "join token without machine id", s.post("/api/v1/join-tokens", `{}`), http.StatusUnprocessableEntity, "machine_id")
	w := s.post("/api/v1/join-tokens", `{"machine_id":"m-1"}`)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/join-tokens = %d %s", w.Code, w.Body)
	}
	one := decode[map[string]any](t, w)["token"].(string)
	n1 := node("n1").inPool("a100").cards(a100Name, a100MiB, 4)
	n1.r.MachineID = "m-2"
	if w := s.post(api.PathRegister, mustJSON(t, n1.r), bearer(one)...); w.Code != http.StatusUnauthorized {
		t.Errorf("register with a token of another machine = %d, want 401", w.Code)
	}
	n1.r.MachineID = "m-1"
	if w := s.post(api.PathRegister, mustJSON(t, n1.r), bearer(one)...); w.Code != http.StatusOK {
		t.Errorf("register n1 again with the admin's single-use token = %d %s, want 200", w.Code, w.Body)
	}
	if w := s.post(api.PathRegister, mustJSON(t, n1.r), bearer(one)...); w.Code != http.StatusUnauthorized {
		t.Errorf("the single-use token again = %d, want 401", w.Code)
	}
	if w := s.post("/api/v1/join-tokens/shared/revoke", ""); w.Code != http.StatusNoContent {
		t.Fatalf("revoke shared = %d %s", w.Code, w.Body)
	}
	w = s.post(api.PathRegister, mustJSON(t, node("new").inPool("a100").cards(a100Name, a100MiB, 1).r), bearer(joinToken)...)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("the revoked shared token = %d, want 401", w.Code)
	}
}
