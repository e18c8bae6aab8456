package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/fleet"
	"kashi/fleet/fleettest"
)

var t0 = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func TestConformance(t *testing.T) {
	fleettest.Run(t, func(t *testing.T) fleet.Provider { return New(Options{}) })
}

func TestConformanceWithBootLatency(t *testing.T) {
	fleettest.Run(t, func(t *testing.T) fleet.Provider {
		return New(Options{Now: func() time.Time { return t0 }, BootLatency: time.Minute})
	})
}

func req(key string) fleet.CreateRequest {
	return fleet.CreateRequest{Pool: "a100", Flavor: "gpu.a100.8x", IdempotencyKey: key, Tags: fleet.Tags("c", "a100", key)}
}

func TestBootLatencyAndHooks(t *testing.T) {
	now := t0
	var running, deleted []string
	p := New(Options{Now: func() time.Time { return now }, BootLatency: 2 * time.Minute,
		OnRunning: func(m fleet.Machine) { running = append(running, m.ID) },
		OnDelete:  func(m fleet.Machine) { deleted = append(deleted, m.ID) }})
	ctx := context.Background()
	m, err := p.Create(ctx, req("k1"))
	if err != nil || m.State != fleet.StateCreating {
		t.Fatalf("Create = %+v, %v; want a creating machine", m, err)
	}
	now = t0.Add(time.Minute)
	p.Tick()
	if len(running) != 0 {
		t.Fatalf("OnRunning called after 1m of a 2m boot: %v", running)
	}
	now = t0.Add(2 * time.Minute)
	got, err := p.Get(ctx, m.ID)
	if err != nil || got.State != fleet.StateRunning {
		t.Fatalf("Get after boot = %+v, %v; want running", got, err)
	}
	if len(running) != 1 || running[0] != m.ID {
		t.Errorf("OnRunning calls = %v, want [%s]", running, m.ID)
	}
	if err := p.Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 1 || deleted[0] != m.ID {
		t.Errorf("OnDelete calls = %v, want [%s]", deleted, m.ID)
	}
	p.Tick()
	if len(running) != 1 {
		t.Errorf("OnRunning called again: %v", running)
	}
}

func TestCapacityLimit(t *testing.T) {
	p := New(Options{Capacity: 2})
	ctx := context.Background()
	for _, k := range []string{"k1", "k2"} {
		if _, err := p.Create(ctx, req(k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Create(ctx, req("k3")); !errors.Is(err, fleet.ErrCapacity) {
		t.Fatalf("third Create at capacity 2: %v, want fleet.ErrCapacity", err)
	}
	ms, _ := p.List(ctx, "a100")
	if err := p.Delete(ctx, ms[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Create(ctx, req("k3")); err != nil {
		t.Fatalf("Create after a delete freed room: %v", err)
	}
}

// TestInjectedFailuresAreSeeded checks the same seed gives the same outcomes, and that each
// kind of injected failure does what it says.
func TestInjectedFailuresAreSeeded(t *testing.T) {
	run := func() []string {
		p := New(Options{Seed: 7, Faults: Faults{CapacityErrorRate: 0.2, CreateErrorRate: 0.2, LostReplyRate: 0.2, BootFailRate: 0.2}})
		var out []string
		for i := range 40 {
			key := "k" + string(rune('a'+i%26)) + string(rune('a'+i/26))
			m, err := p.Create(context.Background(), req(key))
			switch {
			case errors.Is(err, fleet.ErrCapacity):
				out = append(out, "capacity")
			case err != nil:
				out = append(out, "error")
			default:
				out = append(out, m.State)
			}
		}
		ms, _ := p.List(context.Background(), "a100")
		for _, m := range ms {
			out = append(out, m.ID+"="+m.State)
		}
		return out
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatalf("runs differ in length: %d vs %d", len(a), len(b))
	}
	seen := map[string]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("run 1 and 2 differ at %d: %q vs %q", i, a[i], b[i])
		}
		seen[a[i]] = true
	}
	for _, want := range []string{"capacity", "error", fleet.StateFailed} {
		if !seen[want] {
			t.Errorf("40 creates at 20%% rates never gave %q: %v", want, a)
		}
	}
}

func TestLostReplyThenRetryFindsMachine(t *testing.T) {
	p := New(Options{Faults: Faults{LostReplyRate: 1}})
	ctx := context.Background()
	if _, err := p.Create(ctx, req("k1")); err == nil {
		t.Fatal("Create with LostReplyRate 1 succeeded, want an error")
	}
	p.SetFaults(Faults{})
	m, err := p.Create(ctx, req("k1"))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := p.List(ctx, "a100")
	if len(ms) != 1 || ms[0].ID != m.ID {
		t.Errorf("List after a lost reply and a retry = %v, want just %s", ms, m.ID)
	}
}

// TestIDPrefix: machines are named after the prefix, so that two runs of the demo on one
// database never give a machine a name an earlier one had.
func TestIDPrefix(t *testing.T) {
	p := New(Options{IDPrefix: "sim-1203t0130"})
	m, err := p.Create(context.Background(), fleet.CreateRequest{Pool: "a100", Flavor: "gpu.a100.8x", IdempotencyKey: "k1",
		Tags: fleet.Tags("kashi-demo", "a100", "k1")})
	if err != nil || m.ID != "sim-1203t0130-0001" {
		t.Errorf("Create = %q, %v; want sim-1203t0130-0001", m.ID, err)
	}
}
