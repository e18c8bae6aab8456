package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestBootFailures: a machine that fails to boot becomes deleting and counts against its
// pool, which fails at its limit; a machine that boots ends the run and resolves the pool's
// boot alerts, and so does a resume, which returns the state it ended.
func TestBootFailures(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		if err != nil {
			t.Fatal(err)
		}
		keys := []string{"k1", "k2", "k3", "k4"}
		if err := s.RecordScaleUp(ctx, p.ID, keys, models.ScalingEvent{Kind: "scale-up"}, ft0); err != nil {
			t.Fatal(err)
		}
		fail := func(key string, at time.Time) (models.PoolScaleState, bool, error) {
			return s.RecordBootFailure(ctx, models.BootFailure{PoolID: p.ID, Key: key, Reason: "boot-timeout",
				Detail: `[{"c":"boot_timeout"}]`, Limit: 2}, at)
		}
		st, stopped, err := fail("k1", ft0.Add(16*time.Minute))
		if err != nil || stopped || st.BootFailures != 1 || st.FailingSince != nil || !st.BootFailedAt.Equal(ft0.Add(16*time.Minute)) ||
			st.BootFailureReason != "boot-timeout" || st.BootFailureDetail != `[{"c":"boot_timeout"}]` {
			t.Fatalf("first failure = %+v, stopped %v, %v; want 1 failure, not failing", st, stopped, err)
		}
		if m, _ := s.MachineByKey(ctx, "k1"); m.State != models.MachineDeleting {
			t.Errorf("k1 = %s, want deleting", m.State)
		}
		if err := s.SetPoolScaleStatus(ctx, p.ID, 1, 1, nil, ft0.Add(20*time.Minute)); err != nil {
			t.Fatal(err)
		}
		// Counted once: the intent is no longer booting.
		if _, _, err := fail("k1", ft0.Add(17*time.Minute)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("second failure of k1 = %v, want ErrConflict", err)
		}
		st, stopped, err = fail("k2", ft0.Add(time.Hour))
		if err != nil || !stopped || st.BootFailures != 2 || st.FailingSince == nil || !st.FailingSince.Equal(ft0.Add(time.Hour)) {
			t.Fatalf("second failure = %+v, stopped %v, %v; want the pool failing since +1h", st, stopped, err)
		}
		st, stopped, err = fail("k3", ft0.Add(2*time.Hour))
		if err != nil || stopped || st.BootFailures != 3 || !st.FailingSince.Equal(ft0.Add(time.Hour)) {
			t.Errorf("a failure past the limit = %+v, stopped %v, %v; want counted, still failing since +1h", st, stopped, err)
		}
		for _, kind := range []string{models.AlertBootTimeout, models.AlertPoolFailing} {
			if _, _, err := s.RaiseAlert(ctx, models.AlertInput{Kind: kind, Subject: "a100", Pool: "a100"}, ft0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}

		// The last machine boots: the run ends, the alerts are resolved.
		n := fleetNode(t, s, "a100-04", "a100", "i-4")
		if err := s.MarkMachineReady(ctx, "k4", n.ID, ft0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		states, _ := s.PoolScaleStates(ctx)
		if st := states[p.ID]; st.BootFailures != 0 || st.FailingSince != nil || st.BootFailedAt != nil || st.BootFailureDetail != "" {
			t.Errorf("state after a boot = %+v, want no run", st)
		}
		if st := states[p.ID]; !st.UpdatedAt.Equal(ft0.Add(20 * time.Minute)) {
			t.Errorf("state's last tick = %s, want +20m: failures and boots do not move it", st.UpdatedAt)
		}
		if open, _ := s.Alerts(ctx, models.AlertFilter{OpenOnly: true}); len(open) != 0 {
			t.Errorf("open alerts after a boot = %+v, want none", open)
		}

		// A resume ends a run too, and says what it ended.
		if err := s.RecordScaleUp(ctx, p.ID, []string{"k5", "k6"}, models.ScalingEvent{Kind: "scale-up"}, ft0.Add(4*time.Hour)); err != nil {
			t.Fatal(err)
		}
		fail("k5", ft0.Add(5*time.Hour))
		fail("k6", ft0.Add(6*time.Hour))
		before, err := s.ResumePool(ctx, "a100", ft0.Add(7*time.Hour))
		if err != nil || before.BootFailures != 2 || before.FailingSince == nil {
			t.Errorf("ResumePool = %+v, %v; want the state of 2 failures, failing", before, err)
		}
		states, _ = s.PoolScaleStates(ctx)
		if st := states[p.ID]; st.BootFailures != 0 || st.FailingSince != nil || !st.UpdatedAt.Equal(ft0.Add(20*time.Minute)) {
			t.Errorf("state after a resume = %+v, want no run, the last tick still +20m", st)
		}
		if before, err := s.ResumePool(ctx, "a100", ft0.Add(8*time.Hour)); err != nil || before.BootFailures != 0 {
			t.Errorf("ResumePool again = %+v, %v; want nothing to end", before, err)
		}
		if _, err := s.ResumePool(ctx, "h100", ft0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("ResumePool(unknown) = %v, want ErrNotFound", err)
		}
	})
}

// TestBootFailuresCountedAtOnce: failures recorded at the same time all count, and exactly
// one of them stops the pool.
func TestBootFailuresCountedAtOnce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		if err != nil {
			t.Fatal(err)
		}
		keys := []string{"k1", "k2", "k3", "k4", "k5", "k6"}
		if err := s.RecordScaleUp(ctx, p.ID, keys, models.ScalingEvent{Kind: "scale-up"}, ft0); err != nil {
			t.Fatal(err)
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			stops int
		)
		for _, k := range keys {
			wg.Go(func() {
				_, stopped, err := s.RecordBootFailure(ctx, models.BootFailure{PoolID: p.ID, Key: k, Reason: "boot-timeout", Limit: 3}, ft0.Add(time.Hour))
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if stopped {
					stops++
				}
			})
		}
		wg.Wait()
		states, _ := s.PoolScaleStates(ctx)
		if st := states[p.ID]; st.BootFailures != 6 || st.FailingSince == nil || stops != 1 {
			t.Errorf("after 6 failures at once: %+v, %d stops; want 6 failures, failing, stopped once", st, stops)
		}
	})
}
