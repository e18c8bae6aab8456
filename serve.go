package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kashi/datacheck"
	"kashi/demo"
	"kashi/fleet/ctyun"
	"kashi/handlers"
	"kashi/loop"
	"kashi/metrics"
	"kashi/models"
	"kashi/notice"
	"kashi/scaler"
	"kashi/schedule"
	"kashi/scheduler"
	"kashi/views"
	"kashi/web"
)

// serveConfig is the configuration of `kashi serve`.
type serveConfig struct {
	Addr      string
	DB        string
	dbSet     bool
	Demo      bool
	DemoSpeed float64
	JoinToken string
	LogLevel  string
	// Retention is how long raw samples are kept before only rollups remain.
	Retention time.Duration
	// HistoryRetention is how long notifications, scaling events, pools' size samples and
	// alerts are kept (models.Retention).
	HistoryRetention time.Duration
	IdleAfter        time.Duration
	SaturatedAfter   time.Duration
	StaleAfter       time.Duration
	// Tick is the scheduler's period in clock time; every change also wakes it.
	Tick time.Duration
	// TimeZone is where off-peak hours and bills are reckoned.
	TimeZone string
	Location *time.Location
	// PublicURL is where people reach Kashi; an https URL makes cookies Secure.
	PublicURL string
	// SessionIdle and SessionMax bound a login: idle time and absolute age.
	SessionIdle time.Duration
	SessionMax  time.Duration
	// Notify lists the chat and webhook channels of reminders and alerts (notify.Parse
	// specs, comma-separated); empty sends them in-app only.
	Notify string
	// AdminPassword, when set and no user exists, creates the user "admin" with it.
	AdminPassword string
	// Cluster tags the machines this installation creates.
	Cluster string
	// FleetScript is the exec provider's script (one for every verb); empty: no exec pools.
	FleetScript  string
	FleetTimeout time.Duration
	// CtyunCredentials is a file holding the ctyun key pair, read when CTYUN_AK and CTYUN_SK
	// are not set; ctyun holds the pair from either (no key pair: no ctyun pools).
	CtyunCredentials string
	ctyun            ctyun.Credentials
	// CtyunUserData is the cloud-init file ctyun machines boot with; CtyunEndpoint the API.
	CtyunUserData string
	CtyunEndpoint string
	// ScaleEvery is the scaling loop's period in clock time.
	ScaleEvery time.Duration
	// DataRoots confine path data checks; none turns them off.
	DataRoots []string
	// DataCheckAllowHosts may be reached by URL data checks at internal addresses.
	DataCheckAllowHosts []string
	// SecretKey (base64 of 32 bytes) seals secret environment values.
	SecretKey string
	// DBMaxConns bounds the Postgres connection pool.
	DBMaxConns int
	// GCPercent is the Go collector's GOGC for the server; 0 when GOGC in the environment
	// decides (it is set and --gc-percent is not given).
	GCPercent int
	// Lang is the installation's language (views.LangEN or views.LangZH): chat messages of
	// alerts are written in it, whoever reads them; pages follow each viewer's choice.
	Lang string
	// WeeklyReport is when the weekly report goes out, a cron expression in TimeZone;
	// "off" sends none. weekly is it parsed.
	WeeklyReport string
	weekly       *schedule.Schedule
}

func parseServe(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	var c serveConfig
	f := newFlags("serve", getenv, stderr)
	f.String(&c.Addr, "addr", "127.0.0.1:8080", "listen address")
	f.String(&c.DB, "db", "kashi.db", "SQLite file, or a postgres:// DSN")
	f.Bool(&c.Demo, "demo", false, "run a simulated fleet with a fast clock (a fresh database unless --db is given)")
	f.Float(&c.DemoSpeed, "demo-speed", 60, "how much faster than real time the demo's clock runs")
	f.String(&c.JoinToken, "join-token", "", "token agents present to register (the demo makes one)")
	f.String(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	f.Duration(&c.Retention, "retention", 7*24*time.Hour, "how long raw GPU samples are kept")
	f.Duration(&c.HistoryRetention, "history-retention", 90*24*time.Hour, "how long notifications, scaling events, pool sizes and alerts (since resolved or last raised) are kept")
	f.Duration(&c.IdleAfter, "idle-after", 30*time.Minute, "a held card idle this long stands out on the board")
	f.Duration(&c.SaturatedAfter, "saturated-after", 30*time.Minute, "a saturated card this long stands out on the board")
	f.Duration(&c.StaleAfter, "stale-after", 2*time.Minute, "a card silent this long is shown as without data")
	f.Duration(&c.Tick, "tick", 30*time.Second, "the scheduler's period (changes wake it at once)")
	f.String(&c.TimeZone, "time-zone", "Asia/Shanghai", "time zone of off-peak hours and bills")
	f.String(&c.PublicURL, "public-url", "", "the URL people use; https:// marks cookies Secure")
	f.Duration(&c.SessionIdle, "session-idle", 12*time.Hour, "a login ends after this long without a request")
	f.Duration(&c.SessionMax, "session-max", 7*24*time.Hour, "a login ends this long after it began")
	f.String(&c.Notify, "notify", "", "channels for reminders and alerts, comma-separated: webhook:URL, dingtalk:URL#secret=S, feishu:URL#secret=S, wecom:URL")
	f.String(&c.AdminPassword, "admin-password", "", "creates the user admin with this password on first run")
	f.String(&c.Cluster, "cluster", "kashi", "the tag that marks this installation's machines in the cloud")
	f.String(&c.FleetScript, "fleet-script", "", "the exec provider's script, called with the verb as its argument")
	f.Duration(&c.FleetTimeout, "fleet-timeout", 2*time.Minute, "how long one run of the fleet script may take")
	f.String(&c.CtyunCredentials, "ctyun-credentials", "", "a file of CTYUN_AK=… and CTYUN_SK=… lines, mode 600, when those variables are not set")
	f.String(&c.CtyunUserData, "ctyun-user-data", "", "the cloud-init file ctyun machines boot with (@@POOL@@ and @@MACHINE_ID@@ filled in)")
	f.String(&c.CtyunEndpoint, "ctyun-endpoint", ctyun.DefaultEndpoint, "the ctyun ECS OpenAPI endpoint")
	f.Duration(&c.ScaleEvery, "scale-every", 30*time.Second, "the scaling loop's period")
	f.List(&c.DataRoots, "data-root", "a directory path data checks may look under (repeatable; none: path checks off)")
	f.List(&c.DataCheckAllowHosts, "data-check-allow-host", "a URL host data checks may reach at a loopback, link-local or private address (repeatable)")
	f.String(&c.SecretKey, "secret-key", "", "base64 of 32 bytes sealing secret task env values (SQLite default: a key file beside the database)")
	f.Int(&c.DBMaxConns, "db-max-conns", models.DefaultMaxConns, "the most Postgres connections this server opens")
	f.Int(&c.GCPercent, "gc-percent", defaultGCPercent, "the Go collector's GOGC: heap growth between collections, in percent (25-1000; GOGC in the environment wins unless this is given)")
	f.String(&c.Lang, "lang", views.LangZH, "the installation's language, en or zh-CN: alerts in chat are written in it")
	f.String(&c.WeeklyReport, "weekly-report", defaultWeeklyReport, "when the weekly report goes to each project and the --notify channels: a cron expression in --time-zone, or off")
	if err := f.parse(args); err != nil {
		return c, err
	}
	if c.Lang != views.LangEN && c.Lang != views.LangZH {
		return c, fmt.Errorf("--lang must be %s or %s, got %q", views.LangEN, views.LangZH, c.Lang)
	}
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return c, fmt.Errorf("--time-zone: %w", err)
	}
	c.Location = loc
	if c.WeeklyReport != weeklyReportOff {
		w, err := schedule.Parse(c.WeeklyReport, c.TimeZone)
		if err != nil {
			return c, fmt.Errorf("--weekly-report: %w", err)
		}
		c.weekly = &w
	}
	if c.ctyun, err = ctyunCredentials(getenv, c.CtyunCredentials); err != nil {
		return c, err
	}
	c.dbSet = f.given("db")
	if c.DBMaxConns < 1 || c.DBMaxConns > 1000 {
		return c, fmt.Errorf("--db-max-conns must be between 1 and 1000, got %d", c.DBMaxConns)
	}
	if c.GCPercent < 25 || c.GCPercent > 1000 {
		return c, fmt.Errorf("--gc-percent must be between 25 and 1000, got %d", c.GCPercent)
	}
	if getenv("GOGC") != "" && !f.given("gc-percent") {
		c.GCPercent = 0
	}
	if c.DemoSpeed < 1 || c.DemoSpeed > 3600 {
		return c, fmt.Errorf("--demo-speed must be between 1 and 3600, got %g", c.DemoSpeed)
	}
	return c, positive(map[string]time.Duration{"retention": c.Retention, "history-retention": c.HistoryRetention, "idle-after": c.IdleAfter,
		"saturated-after": c.SaturatedAfter, "stale-after": c.StaleAfter, "tick": c.Tick,
		"session-idle": c.SessionIdle, "session-max": c.SessionMax, "fleet-timeout": c.FleetTimeout,
		"scale-every": c.ScaleEvery})
}

// serve runs the server until ctx ends, then shuts down gracefully: stop accepting, finish
// requests, wait for the loops.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	clock := time.Now
	now := func() time.Time { return clock() }
	if cfg.Demo {
		clock = demo.Clock(demo.Morning(time.Now()), cfg.DemoSpeed)
		if !cfg.dbSet {
			dir, err := os.MkdirTemp("", "kashi-demo-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			cfg.DB = filepath.Join(dir, "kashi.db")
		}
		if cfg.JoinToken == "" {
			cfg.JoinToken, _ = models.NewToken("kj_")
		}
	}
	if cfg.GCPercent > 0 {
		debug.SetGCPercent(cfg.GCPercent)
	}
	store, err := models.Open(ctx, cfg.DB, models.Options{Now: now, MaxConns: cfg.DBMaxConns, BoardLag: boardLag})
	if err != nil {
		return err
	}
	defer store.Close()
	if cfg.Demo && cfg.dbSet {
		// A database the demo used before continues from where its clock stopped.
		last, err := store.LastStamp(ctx)
		if err != nil {
			return err
		}
		if !last.IsZero() {
			clock = demo.Clock(last, cfg.DemoSpeed)
		}
	}
	if err := loadSecretKey(store, cfg, log); err != nil {
		return err
	}
	if cfg.JoinToken == "" {
		log.Warn("no --join-token: agents cannot register")
	}

	if err := bootstrapAdmin(ctx, store, cfg.AdminPassword, now(), log); err != nil {
		return err
	}
	speed := 1.0
	var demoTokens map[string]string
	var demoFresh bool
	if cfg.Demo {
		speed = cfg.DemoSpeed
		cfg.StaleAfter = max(cfg.StaleAfter, demo.StaleAfter(speed))
		// Logins last as long in real time as they would without the fast clock.
		cfg.SessionIdle, cfg.SessionMax = time.Duration(float64(cfg.SessionIdle)*speed), time.Duration(float64(cfg.SessionMax)*speed)
		if demoTokens, demoFresh, err = demo.Seed(ctx, store, now()); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	channels, err := channelsOf(cfg.Notify)
	if err != nil {
		return err
	}
	providers, err := fleetProviders(cfg, store)
	if err != nil {
		return err
	}
	cluster := cfg.Cluster
	var sim *demo.Demo
	if cfg.Demo {
		run := ""
		if !demoFresh {
			run = now().UTC().Format("0102t1504")
		}
		sim = demo.New(demo.Config{Server: "http://" + ln.Addr().String(), JoinToken: cfg.JoinToken,
			Now: now, Speed: cfg.DemoSpeed, Logger: log, Tokens: demoTokens, Run: run})
		providers["sim"], cluster = sim.Provider(), demo.Cluster
	}
	loops := loop.NewSet(speed, log)
	sched := scheduler.NewLoop(store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(cfg.Location),
		NodeStaleAfter: cfg.StaleAfter, Now: now, Logger: log})
	schedLoop := loops.Every("scheduler", cfg.Tick, sched.Tick).Coalesce(schedulerGap)
	scale := scaler.New(store, scaler.Config{Providers: providers, Cluster: cluster,
		Queue: sched.QueuePlan, NodeStaleAfter: cfg.StaleAfter, Now: now, Logger: log, Location: cfg.Location,
		Say: views.Locale{}.Say,
		OnAction: func(a scaler.Action) {
			ev, ok := idleEventOf(a)
			if !ok {
				return
			}
			if err := notice.IdleTask(ctx, store, channels, ev, cfg.Location, now()); err != nil {
				log.Warn("idle-task notice", "task", a.TaskID, "err", err)
			}
		}})
	scaleLoop := loops.Every("scaling", cfg.ScaleEvery, scale.Tick)
	readiness := datacheck.NewReadiness(store, now, log).
		WithPolicy(datacheck.Policy{Roots: cfg.DataRoots, AllowHosts: cfg.DataCheckAllowHosts})
	addHousekeeping(loops, store, channels, cfg, now, log)
	addSchedules(loops, store, schedLoop, now, log)
	loops.Every("data checks", readinessEvery, func(ctx context.Context) error {
		n, err := readiness.CheckOnce(ctx)
		if n > 0 {
			schedLoop.Trigger()
		}
		return err
	})

	collector := metrics.New(store, sched.Queue, metrics.MonthBills(store), metrics.Config{Now: now, Logger: log,
		Marks: models.GPUMarks{StaleAfter: cfg.StaleAfter, IdleAfter: cfg.IdleAfter, SaturatedAfter: cfg.SaturatedAfter}})
	if err := prometheus.Register(collector); err != nil {
		return err
	}
	defer prometheus.Unregister(collector)
	h := handlers.New(store, queueControl{sched, schedLoop}, handlers.Config{JoinToken: cfg.JoinToken, IdleAfter: cfg.IdleAfter,
		SaturatedAfter: cfg.SaturatedAfter, StaleAfter: cfg.StaleAfter, TaskLimits: models.DefaultTaskLimits,
		Sessions:      models.SessionLimits{Idle: cfg.SessionIdle, Absolute: cfg.SessionMax},
		SecureCookies: strings.HasPrefix(cfg.PublicURL, "https://"), Demo: cfg.Demo, Location: cfg.Location,
		ScaleTrigger: scaleLoop.Trigger, Flavors: scaler.NewFlavors(providers, 0, now)}, now)
	e := web.New(h, strings.HasPrefix(cfg.PublicURL, "https://"), log)
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("kashi serving", "url", "http://"+ln.Addr().String(), "db", dbLabel(cfg.DB), "demo", cfg.Demo)

	loopCtx, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	var running sync.WaitGroup
	// With Postgres several replicas may serve; only the holder of the advisory lock runs the
	// control loops.
	running.Go(func() { lead(loopCtx, store, log, loops.Run) })
	if sim != nil {
		running.Go(func() { sim.Run(loopCtx) })
	}
	if demoFresh {
		// The past fills beside the live demo, so that the demo starts at once.
		running.Go(func() { fillDemoPast(loopCtx, store, now(), log) })
	}

	select {
	case <-ctx.Done():
	case err := <-serveErr:
		stopLoops()
		running.Wait()
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	stopLoops()
	running.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// boardLag is how long the board may show nodes and holders from before the latest change
// while a fresh snapshot is read behind it; readings are always current.
const boardLag = time.Second

// defaultGCPercent is the server's GOGC: twice the runtime's 100. Under a mixed load of
// 512 agents, 20 viewers and 50 submits a second it cut ingest p99 on Postgres from
// 57-72 ms to 47 ms for 40 MiB more peak RSS (BENCHMARKS.md); the heap a server keeps is small
// (board, caches), so most of what it allocates is garbage of requests.
const defaultGCPercent = 200

// bootstrapAdmin creates the user admin with password when no user exists yet.
func bootstrapAdmin(ctx context.Context, store *models.Store, password string, now time.Time, log *slog.Logger) error {
	if password == "" {
		return nil
	}
	users, err := store.Users(ctx)
	if err != nil || len(users) > 0 {
		return err
	}
	if _, err := store.CreateUser(ctx, "admin", password, models.RoleAdmin, now); err != nil {
		return fmt.Errorf("--admin-password: %w", err)
	}
	log.Info("created the user admin")
	return nil
}

// dbLabel names the database in logs without any password a DSN may hold.
func dbLabel(dsn string) string {
	if models.IsPostgresDSN(dsn) {
		return "postgres"
	}
	return dsn
}

// fillDemoPast gives a fresh demo its past month (demo.FillHistory) and logs what it stored.
func fillDemoPast(ctx context.Context, store *models.Store, now time.Time, log *slog.Logger) {
	began := time.Now()
	stats, err := demo.FillHistory(ctx, store, now, 1)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("demo past", "err", err)
		}
		return
	}
	log.Info("demo past filled", "month issued", stats.Month, "tasks", stats.Tasks, "bills", stats.Bills,
		"card-hours", stats.CardHours, "rollup buckets", stats.RollupBuckets, "took", time.Since(began).Round(time.Millisecond))
}
