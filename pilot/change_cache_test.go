package pilot

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// failingSource fails its first fail period loads, then reads the store.
type failingSource struct {
	*gatedSource
	fail int
}

func (f *failingSource) TaskSpans(ctx context.Context, since, until time.Time) ([]models.TaskSpan, error) {
	if f.fail > 0 {
		f.fail--
		f.loads.Add(1)
		return nil, errors.New("the store is away")
	}
	return f.gatedSource.TaskSpans(ctx, since, until)
}

// TestChangeCacheKeepsTheLatest: a ChangeCache keeps its last kept measures and measures a
// change dropped past them again; a change's measure is kept while its periods stay the
// same and taken again once an hour more has passed since a change younger than the window
// (its periods grew); a failed measure is returned once and measured again on the next ask.
func TestChangeCacheKeepsTheLatest(t *testing.T) {
	ctx := context.Background()
	s := modelstest.SQLite(t, models.Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	cfg := models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Enabled: true, MaxNodes: 4, Step: 1}
	var versions []int
	for i, at := range []time.Time{t0, t0.AddDate(0, 0, 3), t0.AddDate(0, 0, 6), t0.AddDate(0, 0, 9)} {
		cfg.MaxNodes = 4 + i
		p, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", at)
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, p.Version)
	}
	src := &gatedSource{Store: s, gate: make(chan struct{})}
	close(src.gate)
	now := t0.AddDate(0, 0, 10).Add(6 * time.Hour) // the last change is 30 hours old
	cc := NewChangeCache(1)
	measure := func(version int, now time.Time, wantLoads int32) {
		t.Helper()
		c, err := cc.Measure(ctx, src, PoolRef("a100", version), now)
		if err != nil || !c.Ready {
			t.Fatalf("Measure(version %d) = ready %v, %v", version, c.Ready, err)
		}
		if got := src.loads.Load(); got != wantLoads {
			t.Errorf("after measuring version %d at %s the cache loaded %d periods, want %d", version, now, got, wantLoads)
		}
	}
	measure(versions[1], now, 2)
	measure(versions[1], now.Add(5*time.Hour), 2) // its periods are three days, cut at its neighbours
	measure(versions[2], now, 4)                  // keeps one: version 1's measure is dropped
	measure(versions[1], now, 6)                  // measured again
	measure(versions[3], now, 8)
	measure(versions[3], now.Add(59*time.Minute), 8) // 30 hours on each side still
	measure(versions[3], now.Add(time.Hour), 10)     // 31 hours on each side: measured again

	bad := &failingSource{gatedSource: src, fail: 1}
	if _, err := cc.Measure(ctx, bad, PoolRef("a100", versions[2]), now); err == nil {
		t.Fatal("Measure over a failing store = nil error")
	}
	if c, err := cc.Measure(ctx, bad, PoolRef("a100", versions[2]), now); err != nil || !c.Ready {
		t.Fatalf("Measure after the failure = ready %v, %v; want it measured again", c.Ready, err)
	}
	if got := src.loads.Load(); got != 13 { // the failed load, then both periods again
		t.Errorf("after a failure and a retry the cache loaded %d periods, want 13", got)
	}
}
