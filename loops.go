package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	kfleet "kashi/fleet"
	"kashi/fleet/exec"
	"kashi/loop"
	"kashi/models"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
	"kashi/scaler"
	"kashi/schedule"
	"kashi/scheduler"
)

// leading is 1 while this replica holds the leader lock and runs the control loops: across
// the replicas of one database it sums to 1 but for the moments of a hand-over.
var leading = promauto.NewGauge(prometheus.GaugeOpts{
	Name: "kashi_leader", Help: "1 while this replica holds the leader lock and runs the control loops, else 0."})

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
	leading.Set(1)
	defer leading.Set(0)
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

// fleetProviders builds the providers the configuration names; store gives cloud providers
// their pools' settings.
func fleetProviders(cfg serveConfig, store *models.Store) (map[string]kfleet.Provider, error) {
	out := make(map[string]kfleet.Provider)
	if cfg.FleetScript != "" {
		p, err := exec.New(exec.Config{Script: cfg.FleetScript, Timeout: cfg.FleetTimeout})
		if err != nil {
			return nil, fmt.Errorf("--fleet-script: %w", err)
		}
		out["exec"] = p
	}
	if cfg.ctyun.AK != "" {
		p, err := newCtyun(cfg, store)
		if err != nil {
			return nil, err
		}
		out[ctyunProvider] = p
	}
	return out, nil
}

// Periods and gaps of the control loops, in clock time unless said otherwise.
const (
	// readinessEvery is how often declared data checks run.
	readinessEvery = time.Minute
	// rollupEvery is how often samples are rolled up (and old raw samples pruned).
	rollupEvery = 5 * time.Minute
	// pruneEvery is how often the history past --history-retention and expired sessions are
	// deleted.
	pruneEvery = time.Hour
	// reminderEvery is how often quota reminders are looked for.
	reminderEvery = time.Hour
	// alertEvery is how often GPU memory and service alerts are raised and unsent alerts go
	// out.
	alertEvery = time.Minute
	// weeklyEvery is how often the weekly report's loop looks whether it is due.
	weeklyEvery = 5 * time.Minute
	// scheduleEvery is how often templates' schedules are looked at; cron's unit is a minute.
	scheduleEvery = 20 * time.Second
	// schedulerGap is the least real time between two scheduler passes: a burst of submits
	// (fifty a second) costs one pass a second, not one each.
	schedulerGap = time.Second
)

// addHousekeeping adds the loops that keep the record: rollups, the pruning of the history,
// GPU memory alerts and the sending of alerts, quota reminders, and the weekly report unless
// it is off.
func addHousekeeping(loops *loop.Set, store *models.Store, channels []notify.Channel, cfg serveConfig, now func() time.Time, log *slog.Logger) {
	loops.Every("rollups", rollupEvery, func(ctx context.Context) error {
		return store.RollUp(ctx, now(), cfg.Retention)
	})
	loops.Every("history", pruneEvery, func(ctx context.Context) error {
		_, err := store.PruneHistory(ctx, now(), models.Retention{Keep: cfg.HistoryRetention,
			Sessions: models.SessionLimits{Idle: cfg.SessionIdle, Absolute: cfg.SessionMax}})
		return err
	})
	loops.Every("alerts", alertEvery, func(ctx context.Context) error {
		if err := notice.CheckGPUMemory(ctx, store, notice.DefaultMemoryAlertPct, now()); err != nil {
			return err
		}
		if err := notice.CheckServices(ctx, store, now()); err != nil {
			return err
		}
		_, err := notice.SendAlerts(ctx, store, channels, phrase.Locale{Lang: cfg.Lang}, cfg.Location, now(), log)
		return err
	})
	reminders := notice.DefaultReminderPolicy(cfg.Location)
	loops.Every("quota reminders", reminderEvery, func(ctx context.Context) error {
		_, err := notice.SendReminders(ctx, store, channels, reminders, now(), log)
		return err
	})
	if cfg.weekly != nil {
		pol, reports := notice.DefaultWeeklyPolicy(*cfg.weekly, cfg.Location), notice.BillingReports(store, phrase.Locale{Lang: cfg.Lang}, cfg.PublicURL)
		loops.Every("weekly report", weeklyEvery, func(ctx context.Context) error {
			_, _, err := notice.SendWeeklyReports(ctx, store, channels, pol, reports, now(), log)
			return err
		})
	}
}

// addSchedules adds the loop that submits templates' scheduled runs through the store, as the
// API does, and wakes the scheduler after it submitted.
func addSchedules(loops *loop.Set, store *models.Store, schedLoop *loop.Loop, now func() time.Time, log *slog.Logger) {
	runner := schedule.NewRunner(store, schedule.Config{Limits: models.DefaultTaskLimits, Now: now, Logger: log,
		OnSubmit: schedLoop.Trigger})
	loops.Every("schedules", scheduleEvery, runner.Tick)
}

// queueControl is what handlers need of the queue: its view and a way to wake it.
type queueControl struct {
	*scheduler.Loop
	wake *loop.Loop
}

// Trigger wakes the scheduler's loop.
func (q queueControl) Trigger() { q.wake.Trigger() }

// idleEventOf is what the owner of a task is told about a scaling action: idle notices and
// reclaims only, the detail in English for the chat channels, less the task it names first
// (the message names the task itself).
func idleEventOf(a scaler.Action) (notice.IdleEvent, bool) {
	d := a.Detail
	if len(d) > 0 && d[0].Code == "task_of" {
		d = d[1:]
	}
	detail := phrase.Locale{}.Say(d)
	switch a.Kind {
	case scaler.ActionIdleNotice:
		return notice.IdleEvent{TaskID: a.TaskID, Detail: detail}, true
	case scaler.ActionReclaim:
		return notice.IdleEvent{TaskID: a.TaskID, Reclaimed: true, Detail: detail}, true
	}
	return notice.IdleEvent{}, false
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
