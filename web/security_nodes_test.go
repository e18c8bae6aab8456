package web_test

import (
	"net/http"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

// TestJoinTokenCannotHijackNodes: the shared join token registers new machines only; it
// neither takes over a registered hostname (with its assignments) nor moves a GPU a running
// task holds.
func TestJoinTokenCannotHijackNodes(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		tk := s.Create(webtest.Task("secret-run").Ready(), webtest.T0)
		s.Place(tk, webtest.T0, "GPU-n1-0")

		hijack := webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)
		w := s.Post(api.PathRegister, webtest.MustJSON(t, hijack.R), webtest.Bearer(webtest.JoinToken)...)
		webtest.WantAPIError(t, "re-register n1 with the join token only", w, http.StatusConflict, "hostname")
		if w := s.Get(api.PathAssignments, webtest.Bearer(nodes["n1"].Token)...); w.Code != http.StatusOK {
			t.Errorf("n1's own token after the attempt = %d, want 200", w.Code)
		}

		thief := webtest.Node("evil").InPool("a100")
		thief.R.GPUs = []api.GPUInfo{{UUID: "GPU-n1-0", Index: 0, Name: webtest.A100Name, MemoryTotalMiB: webtest.A100MiB}}
		w = s.Post(api.PathRegister, webtest.MustJSON(t, thief.R), webtest.Bearer(webtest.JoinToken)...)
		webtest.WantAPIError(t, "claim a held GPU from another node", w, http.StatusConflict, "gpus[0].uuid")
		if g := s.BoardGPU("GPU-n1-0"); g.Hostname != "n1" {
			t.Errorf("GPU-n1-0 is on %q after the attempt, want n1", g.Hostname)
		}
		if w := s.Post(api.PathRegister, webtest.MustJSON(t, webtest.Node("fresh").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1).R), webtest.Bearer(webtest.JoinToken)...); w.Code != http.StatusOK {
			t.Errorf("a new machine with the join token = %d %s, want 200", w.Code, w.Body)
		}
	})
}

// TestSingleUseJoinTokens: an admin issues a join token bound to a machine id; it registers
// that machine once, never a registered hostname of another machine (refused without spending
// the token), and the shared token can be revoked.
func TestSingleUseJoinTokens(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	s.Projects("audio")
	member := s.Member("mia", "audio")
	if w := s.Post("/api/v1/join-tokens", `{"machine_id":"m-1"}`, webtest.Bearer(member)...); w.Code != http.StatusForbidden {
		t.Errorf("POST /api/v1/join-tokens as a member = %d, want 403", w.Code)
	}
	webtest.WantAPIError(t, "join token without machine id", s.Post("/api/v1/join-tokens", `{}`), http.StatusUnprocessableEntity, "machine_id")
	webtest.WantAPIError(t, "join token of no node", s.Post("/api/v1/join-tokens", `{"node_id":999}`), http.StatusUnprocessableEntity, "node_id")
	w := s.Post("/api/v1/join-tokens", `{"machine_id":"m-1"}`)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/join-tokens = %d %s", w.Code, w.Body)
	}
	one := webtest.Decode[map[string]any](t, w)["token"].(string)
	n1 := webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)
	n1.R.MachineID = "m-2"
	if w := s.Post(api.PathRegister, webtest.MustJSON(t, n1.R), webtest.Bearer(one)...); w.Code != http.StatusUnauthorized {
		t.Errorf("register with a token of another machine = %d, want 401", w.Code)
	}
	n1.R.MachineID = "m-1"
	webtest.WantAPIError(t, "registered n1 with a token of machine m-1", s.Post(api.PathRegister, webtest.MustJSON(t, n1.R), webtest.Bearer(one)...),
		http.StatusConflict, "hostname")
	m1 := webtest.Node("m1-host").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)
	m1.R.MachineID = "m-1"
	if w := s.Post(api.PathRegister, webtest.MustJSON(t, m1.R), webtest.Bearer(one)...); w.Code != http.StatusOK {
		t.Errorf("register machine m-1 with the admin's single-use token = %d %s, want 200", w.Code, w.Body)
	}
	if w := s.Post(api.PathRegister, webtest.MustJSON(t, m1.R), webtest.Bearer(one)...); w.Code != http.StatusUnauthorized {
		t.Errorf("the single-use token again = %d, want 401", w.Code)
	}
	if w := s.Post("/api/v1/join-tokens/shared/revoke", ""); w.Code != http.StatusNoContent {
		t.Fatalf("revoke shared = %d %s", w.Code, w.Body)
	}
	w = s.Post(api.PathRegister, webtest.MustJSON(t, webtest.Node("new").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1).R), webtest.Bearer(webtest.JoinToken)...)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("the revoked shared token = %d, want 401", w.Code)
	}
}
