// Package fleettest is the conformance suite every fleet.Provider passes.
package fleettest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"kashi/fleet"
)

// CapacityExhauster is implemented by a provider, or by a test's wrapper around one, that can
// be told to answer every later Create of a new key with fleet.ErrCapacity. Run skips the
// capacity case for providers without it.
type CapacityExhauster interface {
	ExhaustCapacity()
}

// Run runs the suite; newProvider returns a fresh, empty provider for each case.
//
// A provider passes when: a Create returns a machine with an id, the pool, the key and the
// tags; a second Create with the same key (also concurrently) returns the same machine and
// List shows it once; List shows a pool's machines with their tags and no other pool's; Get
// finds a machine and answers fleet.ErrNotFound for an unknown id; after Delete, Get answers
// fleet.ErrNotFound (or the machine in state deleting) and List no longer shows it running;
// Delete of a deleted or unknown id succeeds; Flavors answers; and an exhausted provider's
// Create fails with fleet.ErrCapacity and creates nothing.
func Run(t *testing.T, newProvider func(t *testing.T) fleet.Provider) {
	t.Run("create", func(t *testing.T) {
		p := newProvider(t)
		req := request("gpu-a", "k-create-1")
		m := create(t, p, req)
		if m.ID == "" || m.Pool != req.Pool || m.IdempotencyKey != req.IdempotencyKey {
			t.Errorf("Create(%+v) = %+v, want an id, the pool and the key", req, m)
		}
		if !hasTags(m, req.Tags) {
			t.Errorf("Create(...).Tags = %v, want %v among them", m.Tags, req.Tags)
		}
		if m.State != fleet.StateCreating && m.State != fleet.StateRunning {
			t.Errorf("Create(...).State = %q, want creating or running", m.State)
		}
	})
	t.Run("idempotent", func(t *testing.T) {
		p := newProvider(t)
		req := request("gpu-a", "k-idem-1")
		first := create(t, p, req)
		again := create(t, p, req)
		if again.ID != first.ID {
			t.Errorf("second Create with key %q = %q, want the first machine %q", req.IdempotencyKey, again.ID, first.ID)
		}
		if n := countKey(t, p, "gpu-a", req.IdempotencyKey); n != 1 {
			t.Errorf("List shows %d machines with key %q, want 1", n, req.IdempotencyKey)
		}
	})
	t.Run("idempotent-concurrent", func(t *testing.T) {
		p := newProvider(t)
		req := request("gpu-a", "k-race-1")
		var wg sync.WaitGroup
		ids := make([]string, 4)
		errs := make([]error, 4)
		for i := range ids {
			wg.Go(func() {
				m, err := p.Create(context.Background(), req)
				ids[i], errs[i] = m.ID, err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("concurrent Create %d: %v", i, err)
			}
			if ids[i] != ids[0] {
				t.Errorf("concurrent Creates with one key gave ids %v, want one id", ids)
				break
			}
		}
		if n := countKey(t, p, "gpu-a", req.IdempotencyKey); n != 1 {
			t.Errorf("List shows %d machines with key %q, want 1", n, req.IdempotencyKey)
		}
	})
	t.Run("list", func(t *testing.T) {
		p := newProvider(t)
		a1 := create(t, p, request("gpu-a", "k-list-a1"))
		a2 := create(t, p, request("gpu-a", "k-list-a2"))
		b1 := create(t, p, request("gpu-b", "k-list-b1"))
		got := list(t, p, "gpu-a")
		ids := map[string]fleet.Machine{}
		for _, m := range got {
			ids[m.ID] = m
		}
		for _, want := range []fleet.Machine{a1, a2} {
			m, ok := ids[want.ID]
			if !ok {
				t.Errorf("List(gpu-a) = %v, want %s among them", got, want.ID)
				continue
			}
			if m.IdempotencyKey != want.IdempotencyKey || !hasTags(m, want.Tags) {
				t.Errorf("List(gpu-a) has %+v, want key %q and tags %v", m, want.IdempotencyKey, want.Tags)
			}
		}
		if _, ok := ids[b1.ID]; ok {
			t.Errorf("List(gpu-a) = %v, holds %s of pool gpu-b", got, b1.ID)
		}
		if len(got) != 2 {
			t.Errorf("List(gpu-a) has %d machines, want 2", len(got))
		}
	})
	t.Run("get", func(t *testing.T) {
		p := newProvider(t)
		m := create(t, p, request("gpu-a", "k-get-1"))
		got, err := p.Get(context.Background(), m.ID)
		if err != nil || got.ID != m.ID || got.IdempotencyKey != m.IdempotencyKey {
			t.Errorf("Get(%q) = %+v, %v; want the machine", m.ID, got, err)
		}
		if _, err := p.Get(context.Background(), "no-such-machine"); !errors.Is(err, fleet.ErrNotFound) {
			t.Errorf("Get(no-such-machine) error = %v, want fleet.ErrNotFound", err)
		}
	})
	t.Run("delete", func(t *testing.T) {
		p := newProvider(t)
		ctx := context.Background()
		m := create(t, p, request("gpu-a", "k-del-1"))
		keep := create(t, p, request("gpu-a", "k-del-2"))
		if err := p.Delete(ctx, m.ID); err != nil {
			t.Fatalf("Delete(%q): %v", m.ID, err)
		}
		got, err := p.Get(ctx, m.ID)
		if !errors.Is(err, fleet.ErrNotFound) && (err != nil || got.State != fleet.StateDeleting) {
			t.Errorf("Get after Delete = %+v, %v; want fleet.ErrNotFound", got, err)
		}
		for _, l := range list(t, p, "gpu-a") {
			if l.ID == m.ID && l.State != fleet.StateDeleting {
				t.Errorf("List after Delete shows %+v", l)
			}
		}
		if err := p.Delete(ctx, m.ID); err != nil {
			t.Errorf("second Delete(%q) = %v, want nil", m.ID, err)
		}
		if err := p.Delete(ctx, "no-such-machine"); err != nil {
			t.Errorf("Delete(no-such-machine) = %v, want nil", err)
		}
		if _, err := p.Get(ctx, keep.ID); err != nil {
			t.Errorf("Get(%q) of the machine not deleted: %v", keep.ID, err)
		}
	})
	t.Run("flavors", func(t *testing.T) {
		p := newProvider(t)
		if _, err := p.Flavors(context.Background()); err != nil {
			t.Errorf("Flavors: %v", err)
		}
	})
	t.Run("capacity", func(t *testing.T) {
		p := newProvider(t)
		ex, ok := p.(CapacityExhauster)
		if !ok {
			t.Skip("provider cannot be exhausted on demand")
		}
		have := create(t, p, request("gpu-a", "k-cap-1"))
		ex.ExhaustCapacity()
		req := request("gpu-a", "k-cap-2")
		m, err := p.Create(context.Background(), req)
		if !errors.Is(err, fleet.ErrCapacity) {
			t.Fatalf("Create when exhausted = %+v, %v; want fleet.ErrCapacity", m, err)
		}
		if n := countKey(t, p, "gpu-a", req.IdempotencyKey); n != 0 {
			t.Errorf("List shows %d machines of the refused key, want 0", n)
		}
		// A key already served still answers: no new machine is needed.
		if again, err := p.Create(context.Background(), request("gpu-a", "k-cap-1")); err != nil || again.ID != have.ID {
			t.Errorf("Create with a served key when exhausted = %+v, %v; want %s", again, err, have.ID)
		}
	})
}

// request is a CreateRequest with Kashi's tags.
func request(pool, key string) fleet.CreateRequest {
	return fleet.CreateRequest{Pool: pool, Flavor: "gpu.test.8x", Image: "kashi-agent-1",
		IdempotencyKey: key, Tags: fleet.Tags("conformance", pool, key)}
}

func create(t *testing.T, p fleet.Provider, req fleet.CreateRequest) fleet.Machine {
	t.Helper()
	m, err := p.Create(context.Background(), req)
	if err != nil {
		t.Fatalf("Create(%s): %v", req.IdempotencyKey, err)
	}
	return m
}

func list(t *testing.T, p fleet.Provider, pool string) []fleet.Machine {
	t.Helper()
	ms, err := p.List(context.Background(), pool)
	if err != nil {
		t.Fatalf("List(%s): %v", pool, err)
	}
	return ms
}

func countKey(t *testing.T, p fleet.Provider, pool, key string) int {
	t.Helper()
	n := 0
	for _, m := range list(t, p, pool) {
		if m.IdempotencyKey == key && m.State != fleet.StateDeleting {
			n++
		}
	}
	return n
}

func hasTags(m fleet.Machine, want map[string]string) bool {
	for k, v := range want {
		if m.Tags[k] != v {
			return false
		}
	}
	return true
}
