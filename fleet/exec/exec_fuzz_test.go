package exec

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kashi/fleet"
)

// FuzzScriptOutput: whatever a script prints, each verb answers an error, or machines and
// flavors the scaling loop can use: an id, a known state, the asked pool and key.
func FuzzScriptOutput(f *testing.F) {
	out := filepath.Join(f.TempDir(), "out")
	cat := []string{"cat", out}
	p, err := New(Config{Create: cat, List: cat, Get: cat, Delete: cat, Flavors: cat, Timeout: 10 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"id":"i-1","pool":"a100","idempotency_key":"k1","state":"running","created_at":"2026-03-01T00:00:00Z"}`,
		`[{"id":"i-1","tags":{"kashi-pool":"a100","kashi-key":"k1"},"state":"creating"},{"id":"i-2","pool":"h800"}]`,
		`[{"name":"gpu.a100.8x","gpus":8,"gpu_model":"A100","memory_mib":81920}]`,
		`{"id":"i-1","idempotency_key":"other"}`, `{"id":"","state":"running"}`, `{"id":"i-1","state":"exploded"}`,
		`[{"id":""}]`, `[{"name":"","gpus":-1}]`, `{"id":"i-1","created_at":"not a time"}`,
		`null`, `[]`, `{}`, ``, `{"id":"i-1"} trailing`, "\xff",
	} {
		f.Add([]byte(s))
	}
	states := []string{fleet.StateCreating, fleet.StateRunning, fleet.StateDeleting, fleet.StateFailed}
	check := func(t *testing.T, verb string, m fleet.Machine) {
		if m.ID == "" || !slices.Contains(states, m.State) {
			t.Fatalf("%s = machine %+v", verb, m)
		}
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, stdout []byte) {
		if err := os.WriteFile(out, stdout, 0o644); err != nil {
			t.Fatal(err)
		}
		req := fleet.CreateRequest{Pool: "a100", Flavor: "gpu.a100.8x", Image: "img", IdempotencyKey: "k1", Tags: fleet.Tags("c", "a100", "k1")}
		if m, err := p.Create(ctx, req); err == nil {
			check(t, "Create", m)
			if m.Pool != "a100" || m.IdempotencyKey != "k1" {
				t.Fatalf("Create = machine %+v for pool a100, key k1", m)
			}
		}
		if ms, err := p.List(ctx, "a100"); err == nil {
			for _, m := range ms {
				check(t, "List", m)
				if m.Pool != "a100" {
					t.Fatalf("List(a100) = machine %+v", m)
				}
			}
		}
		if m, err := p.Get(ctx, "i-1"); err == nil {
			check(t, "Get", m)
		}
		if fs, err := p.Flavors(ctx); err == nil {
			for _, fl := range fs {
				if fl.Name == "" || fl.GPUs < 1 {
					t.Fatalf("Flavors = %+v", fl)
				}
			}
		}
	})
}
