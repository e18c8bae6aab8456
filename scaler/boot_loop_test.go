package scaler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
)

// countingProvider counts the Create calls that reach the cloud, each of them a machine
// paid for.
type countingProvider struct {
	kfleet.Provider
	creates int
}

func (c *countingProvider) Create(ctx context.Context, req kfleet.CreateRequest) (kfleet.Machine, error) {
	c.creates++
	return c.Provider.Create(ctx, req)
}

// neverBootHarness is a scale harness whose provider counts its creates; the test decides
// which machines' agents register (none unless it says).
func neverBootHarness(t *testing.T) (*scaleHarness, *countingProvider) {
	h := newScaleHarness(t, poolConfig(), sim.Options{}, nil)
	counted := &countingProvider{Provider: h.prov}
	h.scaler = New(h.store, Config{Providers: map[string]kfleet.Provider{"sim": counted}, Cluster: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewKey: func(pool string) string { h.keys++; return fmt.Sprintf("%s-k%d", pool, h.keys) }})
	return h, counted
}

// poolState is the pool's scaling state as the store keeps it.
func (h *scaleHarness) poolState() models.PoolScaleState {
	h.t.Helper()
	states, err := h.store.PoolScaleStates(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	return states[h.pool.ID]
}

// openAlerts counts the open alerts of kind and their raises.
func (h *scaleHarness) openAlerts(kind string) (alerts, raised int, severity string) {
	h.t.Helper()
	as, err := h.store.Alerts(h.ctx, models.AlertFilter{OpenOnly: true})
	if err != nil {
		h.t.Fatal(err)
	}
	for _, a := range as {
		if a.Kind == kind {
			alerts, raised, severity = alerts+1, raised+a.Count, a.Severity
		}
	}
	return alerts, raised, severity
}

// TestScalerStopsCreatingMachinesThatNeverBoot runs a pool of minimum 1 whose machines never
// boot, one tick a minute for a day: it asks for a machine, gives it up at the boot timeout,
// waits the back-off (15m, then 30m) before the next, and after the third failure in a row
// asks for none (3 machines paid for, not one every 16 minutes), fails with its reason, and
// raises each alert once. An admin's resume lets it try again, and a machine that boots ends
// the run.
func TestScalerStopsCreatingMachinesThatNeverBoot(t *testing.T) {
	h, cloud := neverBootHarness(t)
	var ups, fails []time.Duration
	for range 24 * 60 {
		for _, a := range h.tick(time.Minute).Actions {
			switch {
			case a.Kind == ActionScaleUp:
				ups = append(ups, h.now.Sub(st0))
			case a.Reason == ReasonBootTimeout:
				fails = append(fails, h.now.Sub(st0))
			}
		}
	}
	if cloud.creates != 3 {
		t.Errorf("creates over a day = %d, want 3 (the limit), then none", cloud.creates)
	}
	// Asked at +1m, given up 16m later; each next one after the back-off: 15m, then 30m.
	wantUps := []time.Duration{time.Minute, 32 * time.Minute, 78 * time.Minute}
	wantFails := []time.Duration{17 * time.Minute, 48 * time.Minute, 94 * time.Minute}
	if fmt.Sprint(ups) != fmt.Sprint(wantUps) || fmt.Sprint(fails) != fmt.Sprint(wantFails) {
		t.Errorf("scale-ups at %v and boot timeouts at %v, want %v and %v", ups, fails, wantUps, wantFails)
	}
	st := h.poolState()
	if st.BootFailures != 3 || st.FailingSince == nil || !st.FailingSince.Equal(st0.Add(94*time.Minute)) ||
		st.BootFailureReason != string(ReasonBootTimeout) {
		t.Errorf("pool state = %+v, want 3 boot timeouts in a row, failing since +94m", st)
	}
	if skips := st.SkipList(); len(skips) == 0 || skips[len(skips)-1].Reason != string(ReasonBootFailing) {
		t.Errorf("reasons not to act = %+v, want boot-failing", skips)
	}
	if n, raised, _ := h.openAlerts(models.AlertBootTimeout); n != 1 || raised != 3 {
		t.Errorf("open boot-timeout alerts = %d raised %d times, want one raised at each of the 3 failures", n, raised)
	}
	if n, raised, sev := h.openAlerts(models.AlertPoolFailing); n != 1 || raised != 1 || sev != models.SeverityCritical {
		t.Errorf("open pool-failing alerts = %d raised %d times (%s), want one critical, raised once", n, raised, sev)
	}

	// An admin resumes the pool: it asks for a machine at the next tick.
	if _, err := h.store.ResumePool(h.ctx, "a100", h.now); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := h.openAlerts(models.AlertPoolFailing); n != 0 {
		t.Errorf("%d pool-failing alerts open after the resume, want it resolved", n)
	}
	h.tick(time.Minute)
	if cloud.creates != 4 {
		t.Errorf("creates after the resume = %d, want 4", cloud.creates)
	}
	// It does not boot either: one failure, then the back-off; the next machine boots.
	h.tick(16 * time.Minute)
	if st := h.poolState(); st.BootFailures != 1 || st.FailingSince != nil {
		t.Errorf("pool state after a failure past the resume = %+v, want 1 failure, not failing", st)
	}
	h.tick(15 * time.Minute)
	if cloud.creates != 5 {
		t.Fatalf("creates after the back-off = %d, want 5", cloud.creates)
	}
	h.registerAll()
	h.tick(time.Minute)
	h.wantIntents("a100-k5:ready")
	if st := h.poolState(); st.BootFailures != 0 || st.BootFailedAt != nil || st.FailingSince != nil {
		t.Errorf("pool state after a machine booted = %+v, want the run ended", st)
	}
	if n, _, _ := h.openAlerts(models.AlertBootTimeout); n != 0 {
		t.Errorf("%d boot-timeout alerts open after a machine booted, want it resolved", n)
	}
}

// TestScalerBootFailuresSurviveRestarts reopens the store (a restarted server) before every
// tick of a pool whose machines never boot: the run of failures is in the database, so the
// pool still stops after three, and stays stopped across restarts.
func TestScalerBootFailuresSurviveRestarts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	now := st0
	cloud := &countingProvider{Provider: sim.New(sim.Options{Now: func() time.Time { return now }})}
	keys := 0
	for i := range 6 * 30 { // six hours, a tick every two minutes
		store, err := models.Open(ctx, path, models.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := store.SavePoolConfig(ctx, "a100", poolConfig(), "admin", "", now); err != nil {
				t.Fatal(err)
			}
		}
		s := New(store, Config{Providers: map[string]kfleet.Provider{"sim": cloud}, Cluster: "test",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			NewKey: func(pool string) string { keys++; return fmt.Sprintf("%s-r%d", pool, keys) }})
		if _, err := s.RunOnce(ctx, now); err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		store.Close()
		now = now.Add(2 * time.Minute)
	}
	if cloud.creates != 3 {
		t.Errorf("creates over six hours of restarts = %d, want 3", cloud.creates)
	}
	store, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cp, _ := store.ConfiguredPoolByName(ctx, "a100")
	states, _ := store.PoolScaleStates(ctx)
	if st := states[cp.ID]; st.BootFailures != 3 || st.FailingSince == nil {
		t.Errorf("pool state after restarts = %+v, want 3 failures in a row, failing", st)
	}
}
