package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/exec"
	"kashi/models"
	"kashi/notify"
	"kashi/scheduler"
)

// leaderEvery is how often a replica without the lock tries to take it, and the holder checks
// it still has it.
const leaderEvery = 10 * time.Second

// lead runs loops while this process holds the leader lock, until ctx ends. Losing the lock
// stops the loops; they start again once the lock is taken again.
func lead(ctx context.Context, store *models.Store, log *slog.Logger, loops func(ctx context.Context)) {
	for {
		l, err := store.LeaderLock(ctx, models.LeaderLockKey)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("leader lock", "err", err)
		case l != nil:
			runWhileLeading(ctx, l, log, loops)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(leaderEvery):
		}
	}
}

// runWhileLeading runs loops until ctx ends or the lock is lost, then releases it.
func runWhileLeading(ctx context.Context, l *models.Leader, log *slog.Logger, loops func(ctx context.Context)) {
	defer l.Release()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { loops(lctx); close(done) }()
	t := time.NewTicker(leaderEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if err := l.Check(ctx); err != nil {
				log.Error("lost the leader lock; stopping the loops", "err", err)
				cancel()
				<-done
				return
			}
		}
	}
}

// fleetProviders builds the providers the configuration names.
func fleetProviders(cfg serveConfig) (map[string]kfleet.Provider, error) {
	out := make(map[string]kfleet.Provider)
	if cfg.FleetScript != "" {
		p, err := exec.New(exec.Config{Script: cfg.FleetScript, Timeout: cfg.FleetTimeout})
		if err != nil {
			return nil, fmt.Errorf("--fleet-script: %w", err)
		}
		out["exec"] = p
	}
	return out, nil
}

// rollupLoop rolls samples up every 5 minutes of (possibly fast) clock time.
func rollupLoop(ctx context.Context, store *models.Store, now func() time.Time, retention time.Duration, speed float64, log *slog.Logger) {
	t := time.NewTicker(time.Duration(float64(5*time.Minute) / speed))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := store.RollUp(ctx, now(), retention); err != nil && ctx.Err() == nil {
				log.Error("roll up samples", "err", err)
			}
		}
	}
}

// reminderLoop sends quota reminders every hour of (possibly fast) clock time.
func reminderLoop(ctx context.Context, store *models.Store, channels []notify.Channel, pol scheduler.ReminderPolicy, now func() time.Time, speed float64, log *slog.Logger) {
	t := time.NewTicker(time.Duration(float64(time.Hour) / speed))
	defer t.Stop()
	for {
		if _, err := scheduler.SendReminders(ctx, store, channels, pol, now(), log); err != nil && ctx.Err() == nil {
			log.Error("quota reminders", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// alertEvery is how often, in real time, unsent alerts go out to the channels.
const alertEvery = 30 * time.Second

// alertLoop raises GPU memory alerts and sends unsent alerts to the channels until ctx ends.
func alertLoop(ctx context.Context, store *models.Store, channels []notify.Channel, now func() time.Time, log *slog.Logger) {
	t := time.NewTicker(alertEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := scheduler.CheckGPUMemory(ctx, store, scheduler.DefaultMemoryAlertPct, now()); err != nil && ctx.Err() == nil {
				log.Error("GPU memory alerts", "err", err)
			}
			if _, err := scheduler.SendAlerts(ctx, store, channels, now(), log); err != nil && ctx.Err() == nil {
				log.Error("send alerts", "err", err)
			}
		}
	}
}

// channelsOf parses the comma-separated --notify list.
func channelsOf(specs string) ([]notify.Channel, error) {
	var out []notify.Channel
	for _, spec := range strings.Split(specs, ",") {
		if spec = strings.TrimSpace(spec); spec == "" {
			continue
		}
		ch, err := notify.Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("--notify: %w", err)
		}
		out = append(out, ch)
	}
	return out, nil
}
