package agent_test

import (
	"context"
	"testing"

	"kashi/models"
	"kashi/web/webtest"
)

// TestAssignmentRunsAsOwner: each assignment names the Unix account its task runs as, its
// owner's, or, where the node's pool says so, the account of the owner's name; whether root
// is allowed; and its limits, the pool's per-GPU settings times its GPUs on the node.
func TestAssignmentRunsAsOwner(t *testing.T) {
	type want struct {
		user      string
		root      bool
		mem, cpus int64
	}
	tests := map[string]struct {
		cfg  func(*models.PoolConfig)
		bob  want
		carl want
	}{
		"pool not configured": {nil, want{user: "bob-x"}, want{}},
		"accounts by name, root, limits": {func(c *models.PoolConfig) {
			c.AccountsByName, c.AllowRoot, c.TaskMemoryPerGPUGiB, c.TaskCPUsPerGPU = true, true, 16, 4
		}, want{"bob-x", true, 2 * 16 * 1024, 2 * 4000}, want{"carl", true, 16 * 1024, 4000}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
				ctx := context.Background()
				n := s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
				if tc.cfg != nil {
					cfg := webtest.A100Config()
					tc.cfg(&cfg)
					if _, err := s.Store.SavePoolConfig(ctx, "a100", cfg, "tester", "", webtest.T0); err != nil {
						t.Fatal(err)
					}
				}
				s.Projects("vision")
				for _, u := range []string{"bob", "carl"} {
					if _, err := s.Store.CreateUser(ctx, u, "pw-"+u, models.RoleUser, webtest.T0); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Store.SetUnixAccount(ctx, "tester", "bob", "bob-x", webtest.T0); err != nil {
					t.Fatal(err)
				}
				bob, carl := webtest.Task("b").GPUs(2).Ready(), webtest.Task("c").Ready()
				bob.Nt.Owner, carl.Nt.Owner = "bob", "carl"
				tb, tc2 := s.Create(bob, webtest.T0), s.Create(carl, webtest.T0)
				s.Place(tb, webtest.T0, n.UUIDs[:2]...)
				s.Place(tc2, webtest.T0, n.UUIDs[2])
				for id, w := range map[int64]want{tb.ID: tc.bob, tc2.ID: tc.carl} {
					a, ok := s.Assigned(n, id)
					got := want{a.RunAsUser, a.AllowRoot, a.MemoryLimitMiB, a.CPULimitMillis}
					if !ok || got != w {
						t.Errorf("task %d's assignment (listed %v) runs as %+v, want %+v", id, ok, got, w)
					}
				}
			})
		})
	}
}
