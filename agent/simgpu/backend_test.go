package simgpu

import (
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/agent"
	"kashi/api"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// fakeClock is a virtual clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// uuids returns the backend's GPU UUIDs.
func uuids(b *Backend) []string {
	var ids []string
	for _, d := range b.Devices {
		ids = append(ids, d.(*server.Device).UUID)
	}
	return ids
}

// read takes one sample of every GPU through the agent's collector.
func read(t *testing.T, b *Backend, now time.Time) []api.Sample {
	t.Helper()
	samples, err := agent.NewCollector(b).Read(now)
	if err != nil {
		t.Fatalf("Read() = %v", err)
	}
	return samples
}

func TestIdleGPUs(t *testing.T) {
	clock := newFakeClock()
	b := New(RTX4090_24G, 4, clock.Now, 1)
	c := agent.NewCollector(b)
	if err := c.Init(); err != nil {
		t.Fatal(err)
	}
	infos, err := c.GPUs()
	if err != nil {
		t.Fatal(err)
	}
	for i, info := range infos {
		want := api.GPUInfo{UUID: uuids(b)[i], Index: i, Name: "NVIDIA GeForce RTX 4090", MemoryTotalMiB: 24564}
		if info != want {
			t.Errorf("GPUs()[%d] = %+v, want %+v", i, info, want)
		}
	}
	for range 50 {
		clock.Add(10 * time.Second)
		for _, s := range read(t, b, clock.Now()) {
			if s.UtilPct > 1 || s.MemoryUsedMiB < 300 || s.MemoryUsedMiB >= 500 || len(s.Processes) > 0 || s.PowerW > 80 {
				t.Fatalf("idle GPU reads %+v, want ~0%% util, a few hundred MiB, no process", s)
			}
		}
	}
}

func TestReadingsFollowShapes(t *testing.T) {
	const run, steps = 10 * time.Hour, 250
	tests := map[Shape]struct {
		// check returns what is wrong with s at progress x of the run, or "".
		check func(x float64, s api.Sample, totalMiB int64) string
	}{
		Train: {check: func(x float64, s api.Sample, totalMiB int64) string {
			if x > 0.09 && x < 0.94 && s.UtilPct < 85 {
				return "training under 85% util"
			}
			if x < 0.07 && s.UtilPct > 15 {
				return "setup over 15% util"
			}
			return ""
		}},
		Finetune: {check: func(x float64, s api.Sample, totalMiB int64) string {
			if x > 0.04 && x < 0.94 && s.UtilPct < 80 {
				return "fine-tuning under 80% util"
			}
			return ""
		}},
		Eval: {check: func(x float64, s api.Sample, totalMiB int64) string {
			if x > 0.03 && x < 0.97 && (s.UtilPct < 40 || s.UtilPct > 80) {
				return "eval outside 40-80% util"
			}
			return ""
		}},
		IdleHolder: {check: func(x float64, s api.Sample, totalMiB int64) string {
			if s.UtilPct >= 10 {
				return "idle holder at 10% util or more"
			}
			if s.MemoryUsedMiB < totalMiB*29/100 {
				return "idle holder holds under 30% memory"
			}
			return ""
		}},
		MemHeavy: {check: func(x float64, s api.Sample, totalMiB int64) string {
			if x > 0.09 && x < 0.94 && s.MemoryUsedMiB*10 <= totalMiB*9 {
				return "memory-heavy training at 90% memory or less"
			}
			return ""
		}},
	}
	configs := []gpus.Config{A100_80G, RTX4090_24G, H800_80G}
	for shape, tc := range tests {
		t.Run(string(shape), func(t *testing.T) {
			for seed := range int64(40) {
				cfg := configs[seed%3]
				clock := newFakeClock()
				b := New(cfg, 2, clock.Now, seed)
				p, err := b.Runner().Start(t.Context(), api.Assignment{TaskID: 1, GPUUUIDs: uuids(b), Command: Command(shape, run, 0)})
				if err != nil {
					t.Fatal(err)
				}
				total, tdp := int64(cfg.MemoryMB), tdpW(cfg)
				for step := range steps {
					x := float64(step) / steps
					for _, s := range read(t, b, clock.Now()) {
						inRange := s.UtilPct >= 0 && s.UtilPct <= 100 && s.MemoryUsedMiB >= 0 && s.MemoryUsedMiB <= total &&
							s.TempC >= 30 && s.TempC <= 90 && s.PowerW >= 0 && s.PowerW <= tdp &&
							len(s.Processes) == 1 && s.Processes[0].UsedMemoryMiB >= 0 && s.Processes[0].UsedMemoryMiB <= s.MemoryUsedMiB
						if !inRange {
							t.Fatalf("seed %d, %s, at %.3f: reading %+v out of range", seed, cfg.Name, x, s)
						}
						if msg := tc.check(x, s, total); msg != "" {
							t.Fatalf("seed %d, %s, at %.3f: %s: %+v", seed, cfg.Name, x, msg, s)
						}
					}
					clock.Add(run / steps)
				}
				p.Stop(0)
			}
		})
	}
}

func TestReadingsAreReproducible(t *testing.T) {
	readAll := func() []api.Sample {
		clock := newFakeClock()
		b := New(A100_80G, 2, clock.Now, 42)
		if _, err := b.Runner().Start(t.Context(), api.Assignment{GPUUUIDs: uuids(b)[:1], Command: Command(Eval, time.Hour, 0)}); err != nil {
			t.Fatal(err)
		}
		var all []api.Sample
		for range 20 {
			clock.Add(time.Minute)
			all = append(all, read(t, b, clock.Now())...)
		}
		return all
	}
	first, second := readAll(), readAll()
	if diff := cmp.Diff(first, second, cmpopts.IgnoreFields(api.Sample{}, "UUID")); diff != "" {
		t.Errorf("same seed, different readings (-first +second):\n%s", diff)
	}
	if len(first) != 40 {
		t.Errorf("got %d readings, want 40", len(first))
	}
}
