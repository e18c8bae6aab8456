// Package control sets up the server's control loops — the scheduler, the scaling loop, data
// checks, templates' schedules and the housekeeping (rollups, pruning, alerts, reminders, the
// weekly report) — on one loop.Set, and runs them while this replica holds the leader lock.
package control

import (
	"context"
	"log/slog"
	"time"

	"kashi/archive"
	"kashi/datacheck"
	"kashi/fleet"
	"kashi/kube"
	"kashi/loop"
	"kashi/models"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
	"kashi/scaler"
	"kashi/schedule"
	"kashi/scheduler"
)

// Periods and gaps of the control loops, in clock time unless said otherwise.
const (
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
	// scheduleEvery is how often templates' schedules are looked at; cron's unit is a minute.
	scheduleEvery = 20 * time.Second
	// archiveEvery is how often new records go into the archive's outbox and due uploads
	// are tried.
	archiveEvery = time.Minute
	// schedulerGap is the least real time between two scheduler passes: a burst of submits
	// (fifty a second) costs one pass a second, not one each.
	schedulerGap = time.Second
	// kubeEvery is how often the Kubernetes pools are looked for: a pool made or changed gets
	// its cluster's controller within it.
	kubeEvery = 30 * time.Second
)

// Config is what the control loops need besides the store.
type Config struct {
	// Speed is how much faster than real time the clock runs: 1, or the demo's speed.
	Speed float64
	// Tick is the scheduler's period and ScaleEvery the scaling loop's, in clock time.
	Tick, ScaleEvery time.Duration
	// Location is where off-peak hours, reminders and alerts are reckoned.
	Location *time.Location
	// StaleAfter is when a silent node is lost to the scheduler and the scaler.
	StaleAfter time.Duration
	// Providers make and delete the pools' machines, by provider name; Cluster tags them.
	Providers map[string]fleet.Provider
	Cluster   string
	// Channels carry reminders, alerts and notices besides the in-app ones; their messages'
	// links into Kashi are made absolute under PublicURL (the --public-url).
	Channels  []notify.Channel
	PublicURL string
	// Retention is how long raw samples are kept; History what else is kept and for how long.
	Retention time.Duration
	History   models.Retention
	// DataChecks confines the data checks tasks declare.
	DataChecks datacheck.Policy
	// Words is the installation's language: the messages the loops write for the chat
	// channels and the in-app notices they store (alerts, reminders, idle notices, the
	// weekly report) are written in it.
	Words phrase.Locale
	// Weekly sends the weekly report; nil sends none.
	Weekly *Weekly
	// Archive keeps the records in object storage; nil keeps none there.
	Archive *archive.Archiver
	// Directory are the sign-in directories' periodic checks (the OpenID provider's), run
	// only while this replica leads, so that two replicas never spend one refresh token.
	Directory []Periodic
	// Now is the clock (the demo's runs fast).
	Now    func() time.Time
	Logger *slog.Logger
}

// Periodic is a loop the server's wiring adds: its name, period and pass.
type Periodic struct {
	Name  string
	Every time.Duration
	Run   func(ctx context.Context) error
}

// Weekly is the weekly report's sending: looked at every Every, due by Policy, worded by
// Reports.
type Weekly struct {
	Every   time.Duration
	Policy  notice.WeeklyPolicy
	Reports notice.WeeklyReports
}

// Loops are the server's control loops, set up and not yet running: Lead runs them.
type Loops struct {
	set   *loop.Set
	store *models.Store
	log   *slog.Logger
	scale *loop.Loop
	// clusters runs the Kubernetes pools' controllers.
	clusters *kube.Controller
	// Queue is the scheduler's loop, for the pages, the metrics and the handlers' wake-ups.
	Queue Queue
}

// Queue is what handlers need of the queue: its view and a way to wake it.
type Queue struct {
	*scheduler.Loop
	wake *loop.Loop
}

// Trigger wakes the scheduler's loop.
func (q Queue) Trigger() { q.wake.Trigger() }

// New sets up the control loops over store. ctx bounds the idle-task notices the scaling
// loop sends.
func New(ctx context.Context, store *models.Store, cfg Config) *Loops {
	cfg.Channels = notify.Under(cfg.PublicURL, cfg.Channels)
	now, log := cfg.Now, cfg.Logger
	set := loop.NewSet(cfg.Speed, log)
	var scale *scaler.Scaler
	sched := scheduler.NewLoop(store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(cfg.Location),
		NodeStaleAfter: cfg.StaleAfter, ScalePeriod: cfg.ScaleEvery, Now: now, Logger: log,
		ReclaimForecast: func(ctx context.Context, now time.Time, pools []models.ConfiguredPool, nodes []models.NodeGPUs,
			tasks []models.TaskRow, open []models.Allocation) (map[int64]time.Time, error) {
			return scale.ReclaimForecast(ctx, now, pools, nodes, tasks, open)
		}})
	// A lost node's allocations close at its last sign of life, NodeLostAfter back: the
	// quotas' use keeps only what ended before that.
	store.SetLateEnds(sched.NodeLostAfter())
	schedLoop := set.Every("scheduler", cfg.Tick, SchedulerPass(store, sched, now, log)).Coalesce(schedulerGap)
	clusters := kube.New(store, kube.Config{Wake: schedLoop.Trigger, Now: now, Logger: log})
	scale = scaler.New(store, scaler.Config{Providers: cfg.Providers, Cluster: cfg.Cluster, Cordon: clusters.Cordon,
		Queue: sched.QueuePlan, NodeStaleAfter: cfg.StaleAfter, Now: now, Logger: log, Location: cfg.Location,
		OnAction: func(a scaler.Action) {
			ev, ok := idleEventOf(a)
			if !ok {
				return
			}
			if err := notice.IdleTask(ctx, store, cfg.Channels, cfg.Words, ev, cfg.Location, now()); err != nil {
				log.Warn("idle-task notice", "task", a.TaskID, "err", err)
			}
		}})
	scaleLoop := set.Every("scaling", cfg.ScaleEvery, scale.Tick)
	readiness := datacheck.NewReadiness(store, now, log).WithPolicy(cfg.DataChecks)
	addHousekeeping(set, store, cfg)
	for _, p := range cfg.Directory {
		set.Every(p.Name, p.Every, p.Run)
	}
	addSchedules(set, store, schedLoop, now, log)
	set.Every("kubernetes pools", kubeEvery, clusters.Tick)
	set.Every("data checks", models.DataCheckEvery, func(ctx context.Context) error {
		n, err := readiness.CheckOnce(ctx)
		if n > 0 {
			schedLoop.Trigger()
		}
		return err
	})
	return &Loops{set: set, store: store, log: log, scale: scaleLoop, clusters: clusters, Queue: Queue{sched, schedLoop}}
}

// SchedulerPass is one pass of the scheduler's loop: the pipelines first, then the queue.
// Every task's end wakes the loop, so a pipeline's stage whose parents just ended is
// submitted, and placed when cards are free, in the same pass; a pass in which no stage's
// task ended costs the pipelines one query. A task ended by the queue itself (its node lost)
// moves its pipeline on at the next pass.
func SchedulerPass(store *models.Store, sched *scheduler.Loop, now func() time.Time, log *slog.Logger) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if _, err := store.AdvancePipelines(ctx, models.DefaultTaskLimits, now()); err != nil {
			log.Warn("pipelines", "err", err) // the queue still runs
		}
		return sched.Tick(ctx)
	}
}

// Clusters runs the Kubernetes pools' controllers, and says what they know of their
// clusters (none where this replica does not lead the loops).
func (l *Loops) Clusters() *kube.Controller { return l.clusters }

// TriggerScale wakes the scaling loop.
func (l *Loops) TriggerScale() { l.scale.Trigger() }

// addHousekeeping adds the loops that keep the record: rollups, the pruning of the history,
// GPU memory alerts and the sending of alerts, quota reminders, the archive when one is
// configured, and the weekly report unless it is off.
func addHousekeeping(set *loop.Set, store *models.Store, cfg Config) {
	now, log, channels := cfg.Now, cfg.Logger, cfg.Channels
	set.Every("rollups", rollupEvery, func(ctx context.Context) error {
		return store.RollUp(ctx, now(), cfg.Retention)
	})
	set.Every("history", pruneEvery, func(ctx context.Context) error {
		_, err := store.PruneHistory(ctx, now(), cfg.History)
		return err
	})
	set.Every("alerts", alertEvery, func(ctx context.Context) error {
		if err := notice.CheckGPUMemory(ctx, store, notice.DefaultMemoryAlertPct, now()); err != nil {
			return err
		}
		if err := notice.CheckServices(ctx, store, now()); err != nil {
			return err
		}
		_, err := notice.SendAlerts(ctx, store, channels, cfg.Words, cfg.Location, now(), log)
		return err
	})
	reminders := notice.DefaultReminderPolicy(cfg.Location)
	set.Every("quota reminders", reminderEvery, func(ctx context.Context) error {
		_, err := notice.SendReminders(ctx, store, channels, cfg.Words, reminders, now(), log)
		return err
	})
	if a := cfg.Archive; a != nil {
		set.Every("archive", archiveEvery, func(ctx context.Context) error { return a.Pass(ctx, now()) })
	}
	if w := cfg.Weekly; w != nil {
		set.Every("weekly report", w.Every, func(ctx context.Context) error {
			_, _, err := notice.SendWeeklyReports(ctx, store, channels, w.Policy, w.Reports, now(), log)
			return err
		})
	}
}

// addSchedules adds the loop that submits templates' scheduled runs through the store, as the
// API does, and wakes the scheduler after it submitted.
func addSchedules(set *loop.Set, store *models.Store, schedLoop *loop.Loop, now func() time.Time, log *slog.Logger) {
	runner := schedule.NewRunner(store, schedule.Config{Limits: models.DefaultTaskLimits, Now: now, Logger: log,
		OnSubmit: schedLoop.Trigger})
	set.Every("schedules", scheduleEvery, runner.Tick)
}

// idleEventOf is what the owner and leads of a task are told about a scaling action: idle
// notices and reclaims only, with the action's reason as catalog codes (notice.IdleTask words
// them in the installation's language), less the task it names first (the message names the
// task itself).
func idleEventOf(a scaler.Action) (notice.IdleEvent, bool) {
	d := a.Detail
	if len(d) > 0 && d[0].Code == "task_of" {
		d = d[1:]
	}
	switch a.Kind {
	case scaler.ActionIdleNotice:
		return notice.IdleEvent{TaskID: a.TaskID, Detail: d}, true
	case scaler.ActionReclaim:
		return notice.IdleEvent{TaskID: a.TaskID, Reclaimed: true, Detail: d}, true
	}
	return notice.IdleEvent{}, false
}
