package agent_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// issueJoinToken asks for a single-use join token as the admin and returns it.
func issueJoinToken(t *testing.T, s *webtest.Server, body string) string {
	t.Helper()
	w := s.Post("/api/v1/join-tokens", body)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/join-tokens %s = %d %s", body, w.Code, w.Body)
	}
	return webtest.Decode[api.JoinToken](t, w).Token
}

// register posts n's registration with the headers hdr.
func register(t *testing.T, s *webtest.Server, n *webtest.NodeB, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	return s.Post(api.PathRegister, webtest.MustJSON(t, n.R), hdr...)
}

// a100 is the registration of host with count A100 cards (GPU-<host>-<i>) and machine id.
func a100(host, machineID string, count int) *webtest.NodeB {
	n := webtest.Node(host).InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, count)
	n.R.MachineID = machineID
	return n
}

// card is an A100 of uuid at index i.
func card(uuid string, i int) api.GPUInfo {
	return api.GPUInfo{UUID: uuid, Index: i, Name: webtest.A100Name, MemoryTotalMiB: webtest.A100MiB}
}

// wantNodeUnharmed checks that node n still answers to its token and holds its cards.
func wantNodeUnharmed(t *testing.T, s *webtest.Server, host string, n webtest.Registered) {
	t.Helper()
	if w := s.Get(api.PathAssignments, webtest.Bearer(n.Token)...); w.Code != http.StatusOK {
		t.Errorf("%s's own token after the attempts = %d, want 200", host, w.Code)
	}
	for _, u := range n.UUIDs {
		if g := s.BoardGPU(u); g.Hostname != host || g.NodeID != n.ID {
			t.Errorf("%s is on node %d %q after the attempts, want %d %s", u, g.NodeID, g.Hostname, n.ID, host)
		}
	}
}

// wantClaimsRecorded checks that count refused registrations are in the audit log and that
// one critical node-claim alert about node counts them.
func wantClaimsRecorded(t *testing.T, s *webtest.Server, node int64, count int) {
	t.Helper()
	ctx := context.Background()
	entries, err := s.Store.AuditLog(ctx, models.AuditFilter{Action: models.AuditNodeClaimRefused})
	if err != nil || len(entries) != count {
		t.Errorf("audit entries of refused registrations = %d (%v), want %d", len(entries), err, count)
	}
	alerts, err := s.Store.Alerts(ctx, models.AlertFilter{OpenOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var claims []models.Alert
	for _, a := range alerts {
		if a.Kind == models.AlertNodeClaim {
			claims = append(claims, a)
		}
	}
	if len(claims) != 1 || claims[0].NodeID != node || claims[0].Count != count || claims[0].Severity != models.SeverityCritical {
		t.Errorf("node-claim alerts = %+v, want one critical alert about node %d raised %d times", claims, node, count)
	}
}

// TestJoinTokenOfAMachineTakesNoOtherNode: a single-use join token an admin issued for
// machine m-x registers that machine only. Sent with the hostname of a registered node, or
// with a node's GPUs, it is refused (409 naming the field), audited and alerted; the node
// keeps its token and its cards, and the token, not spent, still registers m-x.
func TestJoinTokenOfAMachineTakesNoOtherNode(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1 := s.Register(a100("n1", "m-1", 4))
		tok := issueJoinToken(t, s, `{"machine_id":"m-x"}`)

		webtest.WantAPIError(t, "n1's hostname with m-x's token", register(t, s, a100("n1", "m-x", 4), webtest.Bearer(tok)...),
			http.StatusConflict, "hostname")
		cards := a100("x-01", "m-x", 0)
		cards.R.GPUs = []api.GPUInfo{card("GPU-x-0", 0), card("GPU-n1-2", 1)}
		webtest.WantAPIError(t, "n1's card with m-x's token", register(t, s, cards, webtest.Bearer(tok)...),
			http.StatusConflict, "gpus[1].uuid")
		wantNodeUnharmed(t, s, "n1", n1)
		wantClaimsRecorded(t, s, n1.ID, 2)

		if w := register(t, s, a100("x-01", "m-x", 2), webtest.Bearer(tok)...); w.Code != http.StatusOK {
			t.Errorf("m-x with its own token after the refusals = %d %s, want 200", w.Code, w.Body)
		}
	})
}

// TestSharedJoinTokenTakesNoGPU: the shared join token registers new machines only. A new
// hostname that names a registered node's free card, or its machine id, is refused (409
// naming the field), audited and alerted: the card stays on its node, and the next task
// placed on it is assigned to that node, not to the newcomer.
func TestSharedJoinTokenTakesNoGPU(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1 := s.Register(a100("n1", "m-1", 4))
		s.Projects("vision")

		thief := a100("evil", "", 0)
		thief.R.GPUs = []api.GPUInfo{card("GPU-n1-0", 0)}
		webtest.WantAPIError(t, "a free card of n1 under a new hostname", register(t, s, thief, webtest.Bearer(webtest.JoinToken)...),
			http.StatusConflict, "gpus[0].uuid")
		webtest.WantAPIError(t, "n1's machine id under a new hostname", register(t, s, a100("evil", "m-1", 1), webtest.Bearer(webtest.JoinToken)...),
			http.StatusConflict, "machine_id")
		wantNodeUnharmed(t, s, "n1", n1)
		wantClaimsRecorded(t, s, n1.ID, 2)

		tk := s.Create(webtest.Task("secret-run").Ready(), webtest.T0)
		s.Place(tk, webtest.T0, "GPU-n1-0")
		if a, ok := s.Assigned(n1, tk.ID); !ok || len(a.GPUUUIDs) != 1 || a.GPUUUIDs[0] != "GPU-n1-0" {
			t.Errorf("n1's assignment of the task = %+v %v, want it on GPU-n1-0", a, ok)
		}
		if w := register(t, s, a100("fresh", "m-2", 1), webtest.Bearer(webtest.JoinToken)...); w.Code != http.StatusOK {
			t.Errorf("a new machine with the shared token = %d %s, want 200", w.Code, w.Body)
		}
	})
}

// TestNodeRegistersItselfAgain: what a node owns it changes itself, with its own token (an
// agent restarted after a GPU swap, under a new hostname or machine id: what it no longer
// names, another node may take), or an admin does for that very machine, with a join token
// bound to its machine id or to the node (its agent lost its token). Each keeps the node's id
// and makes the old token stop working; a token bound to one node takes no other's hostname.
func TestNodeRegistersItselfAgain(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1 := s.Register(a100("n1", "m-1", 2))
		n2 := s.Register(a100("n2", "m-2", 2))
		h1 := s.Register(webtest.Node("h1").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 2))

		swapped := a100("n1-renamed", "m-1b", 0)
		swapped.R.GPUs = []api.GPUInfo{card("GPU-n1-0", 0), card("GPU-n1-new", 1)}
		again := s.Reregister(swapped, n1.Token)
		if again.ID != n1.ID {
			t.Errorf("n1 after a GPU swap and a new name is node %d, want %d", again.ID, n1.ID)
		}
		if g := s.BoardGPU("GPU-n1-new"); g.NodeID != n1.ID || g.Hostname != "n1-renamed" {
			t.Errorf("the new card is on node %d %q, want %d n1-renamed", g.NodeID, g.Hostname, n1.ID)
		}
		// The card n1 let go goes into n2; the one n1 kept does not.
		moved := a100("n2", "m-2", 2)
		moved.R.GPUs = append(moved.R.GPUs, card("GPU-n1-0", 2))
		webtest.WantAPIError(t, "n2 with a card n1 kept", register(t, s, moved, "Authorization", "Bearer "+webtest.JoinToken, api.HeaderNodeToken, n2.Token),
			http.StatusConflict, "gpus[2].uuid")
		moved.R.GPUs[2] = card("GPU-n1-1", 2)
		n2 = s.Reregister(moved, n2.Token)
		if g := s.BoardGPU("GPU-n1-1"); g.NodeID != n2.ID {
			t.Errorf("the card n1 let go is on node %d, want n2 (%d)", g.NodeID, n2.ID)
		}
		newcomer := a100("n1", "m-1", 0)
		newcomer.R.GPUs = []api.GPUInfo{card("GPU-newcomer-0", 0)}
		if w := register(t, s, newcomer, webtest.Bearer(webtest.JoinToken)...); w.Code != http.StatusOK {
			t.Errorf("n1's old hostname and machine id, given up, for a new machine = %d %s, want 200", w.Code, w.Body)
		}

		byMachine := issueJoinToken(t, s, `{"machine_id":"m-2"}`)
		w := register(t, s, a100("n2", "m-2", 2), webtest.Bearer(byMachine)...)
		if w.Code != http.StatusOK || webtest.Decode[api.RegisterResponse](t, w).NodeID != n2.ID {
			t.Errorf("n2 with a join token of its machine id = %d %s, want 200 for node %d", w.Code, w.Body, n2.ID)
		}

		byNode := issueJoinToken(t, s, `{"node_id":`+webtest.IDStr(h1.ID)+`}`)
		webtest.WantAPIError(t, "n2's hostname with a token bound to h1", register(t, s, a100("n2", "", 1), webtest.Bearer(byNode)...),
			http.StatusConflict, "hostname")
		w = register(t, s, webtest.Node("h1").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 2), webtest.Bearer(byNode)...)
		if w.Code != http.StatusOK || webtest.Decode[api.RegisterResponse](t, w).NodeID != h1.ID {
			t.Errorf("h1 with a join token bound to it = %d %s, want 200 for node %d", w.Code, w.Body, h1.ID)
		}

		for host, tok := range map[string]string{"n1": n1.Token, "n2": n2.Token, "h1": h1.Token} {
			if w := s.Get(api.PathAssignments, webtest.Bearer(tok)...); w.Code != http.StatusUnauthorized {
				t.Errorf("%s's token from before = %d, want 401", host, w.Code)
			}
		}
	})
}

// TestRegistrationsAtOnce: registrations sent at once never give two nodes one hostname,
// machine id or GPU: of 8 that name the same one, one is registered and 7 are refused (409
// naming the field), and the one registered holds it.
func TestRegistrationsAtOnce(t *testing.T) {
	alone := func(host, machineID, uuid string) *webtest.NodeB {
		n := a100(host, machineID, 0)
		n.R.GPUs = []api.GPUInfo{card(uuid, 0)}
		return n
	}
	tests := map[string]struct {
		field string
		reg   func(i int) *webtest.NodeB
	}{
		"one GPU":      {"gpus[0].uuid", func(i int) *webtest.NodeB { return alone(fmt.Sprintf("race-%d", i), "", "GPU-race") }},
		"one hostname": {"hostname", func(i int) *webtest.NodeB { return alone("race", "", fmt.Sprintf("GPU-race-%d", i)) }},
		"one machine id": {"machine_id", func(i int) *webtest.NodeB {
			return alone(fmt.Sprintf("race-%d", i), "m-race", fmt.Sprintf("GPU-race-%d", i))
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
				s.Register(a100("n1", "m-1", 1)) // the pool exists
				ws := make([]*httptest.ResponseRecorder, 8)
				var wg sync.WaitGroup
				for i := range ws {
					wg.Go(func() { ws[i] = register(t, s, tc.reg(i), webtest.Bearer(webtest.JoinToken)...) })
				}
				wg.Wait()
				var won []int
				for i, w := range ws {
					if w.Code == http.StatusOK {
						won = append(won, i)
						continue
					}
					webtest.WantAPIError(t, fmt.Sprintf("registration %d", i), w, http.StatusConflict, tc.field)
				}
				if len(won) != 1 {
					t.Fatalf("registrations that won = %v, want one", won)
				}
				id := webtest.Decode[api.RegisterResponse](t, ws[won[0]]).NodeID
				if g := s.BoardGPU(tc.reg(won[0]).R.GPUs[0].UUID); g.NodeID != id {
					t.Errorf("the winner's card is on node %d, want %d", g.NodeID, id)
				}
			})
		})
	}
}
