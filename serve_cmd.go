package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"kashi/archive"
	"kashi/control"
	"kashi/datacheck"
	"kashi/demo"
	kfleet "kashi/fleet"
	"kashi/fleet/ctyun"
	"kashi/fleet/ctyun/ctyunstore"
	"kashi/fleet/exec"
	"kashi/handlers"
	"kashi/loop"
	"kashi/metrics"
	"kashi/models"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
	"kashi/scaler"
	"kashi/schedule"
	"kashi/web"
)

// serveConfig is the configuration of `kashi serve`.
type serveConfig struct {
	Addr      string
	DB        string
	dbSet     bool
	Demo      bool
	DemoSpeed float64
	// DemoFaults is the rate of the demo cloud's faults and of its lost machines.
	DemoFaults float64
	JoinToken  string
	LogLevel   string
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
	// Lang is the installation's language (phrase.LangEN or phrase.LangZH): chat messages of
	// alerts are written in it, whoever reads them; pages follow each viewer's choice.
	Lang string
	// WeeklyReport is when the weekly report goes out, a cron expression in TimeZone;
	// "off" sends none. weekly is it parsed.
	WeeklyReport string
	weekly       *schedule.Schedule
	// MetricsTokenFile holds the token a scrape sends to see the month's money on /metrics;
	// metricsToken is what it holds.
	MetricsTokenFile string
	metricsToken     string
	// Archive is where records are archived (--archive and its settings); archive is it
	// checked, nil without --archive.
	Archive archiveFlags
	archive *archive.Config
	// SSO is sign-in through the organisation's directory.
	SSO ssoConfig
}

func parseServe(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	var c serveConfig
	f := newFlags("serve", getenv, stderr)
	f.String(&c.Addr, "addr", "127.0.0.1:8080", "listen address")
	f.String(&c.DB, "db", "kashi.db", "SQLite file, or a postgres:// DSN")
	f.Bool(&c.Demo, "demo", false, "run a simulated fleet with a fast clock (a fresh database unless --db is given)")
	f.Float(&c.DemoSpeed, "demo-speed", 60, "how much faster than real time the demo's clock runs")
	f.Float(&c.DemoFaults, "demo-faults", 0, "with --demo: the rate (0 to 0.5) at which the demo's cloud fails calls, loses replies and fails boots, and at which a running machine is lost each simulated hour")
	f.Secret(&c.JoinToken, "join-token", "token agents present to register (the demo makes one)")
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
	f.Secret(&c.Notify, "notify", "channels for reminders and alerts, comma-separated: webhook:URL, dingtalk:URL#secret=S, feishu:URL#secret=S, wecom:URL")
	f.Secret(&c.AdminPassword, "admin-password", "creates the user admin with this password on first run")
	f.String(&c.Cluster, "cluster", "kashi", "the tag that marks this installation's machines in the cloud")
	f.String(&c.FleetScript, "fleet-script", "", "the exec provider's script, called with the verb as its argument")
	f.Duration(&c.FleetTimeout, "fleet-timeout", 2*time.Minute, "how long one run of the fleet script may take")
	f.String(&c.CtyunCredentials, "ctyun-credentials", "", "a file of CTYUN_AK=… and CTYUN_SK=… lines, mode 600, when those variables are not set")
	f.String(&c.CtyunUserData, "ctyun-user-data", "", "the cloud-init file ctyun machines boot with (@@POOL@@ and @@MACHINE_ID@@ filled in)")
	f.String(&c.CtyunEndpoint, "ctyun-endpoint", ctyun.DefaultEndpoint, "the ctyun ECS OpenAPI endpoint")
	f.Duration(&c.ScaleEvery, "scale-every", 30*time.Second, "the scaling loop's period")
	f.List(&c.DataRoots, "data-root", "a directory path data checks may look under (repeatable; none: path checks off)")
	f.List(&c.DataCheckAllowHosts, "data-check-allow-host", "a URL host data checks may reach at a loopback, link-local or private address (repeatable)")
	f.Secret(&c.SecretKey, "secret-key", "base64 of 32 bytes sealing secret task env values (SQLite default: a key file beside the database)")
	f.Int(&c.DBMaxConns, "db-max-conns", models.DefaultMaxConns, "the most Postgres connections this server opens")
	f.Int(&c.GCPercent, "gc-percent", defaultGCPercent, "the Go collector's GOGC: heap growth between collections, in percent (25-1000; GOGC in the environment wins unless this is given)")
	f.String(&c.Lang, "lang", phrase.LangZH, "the installation's language, en or zh-CN: alerts in chat are written in it")
	f.String(&c.MetricsTokenFile, "metrics-token-file", "", "a file holding the token Prometheus sends (Authorization: Bearer) to see the month's bills on /metrics; without it /metrics shows no money")
	f.String(&c.WeeklyReport, "weekly-report", defaultWeeklyReport, "when the weekly report goes to each project and the --notify channels: a cron expression in --time-zone, or off")
	c.Archive.define(f, true)
	ssoFlags(f, &c.SSO)
	if err := f.parse(args); err != nil {
		return c, err
	}
	archiveCfg, err := c.Archive.config()
	if err != nil {
		return c, err
	}
	c.archive = archiveCfg
	if err := c.SSO.check(c.PublicURL); err != nil {
		return c, err
	}
	if c.Lang != phrase.LangEN && c.Lang != phrase.LangZH {
		return c, fmt.Errorf("--lang must be %s or %s, got %q", phrase.LangEN, phrase.LangZH, c.Lang)
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
	if c.MetricsTokenFile != "" {
		b, err := os.ReadFile(c.MetricsTokenFile)
		if err != nil {
			return c, fmt.Errorf("--metrics-token-file: %w", err)
		}
		if c.metricsToken = strings.TrimSpace(string(b)); len(c.metricsToken) < 16 {
			return c, errors.New("--metrics-token-file: the token must be at least 16 characters")
		}
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
	if c.DemoFaults < 0 || c.DemoFaults > 0.5 {
		return c, fmt.Errorf("--demo-faults must be between 0 and 0.5, got %g", c.DemoFaults)
	}
	return c, positive(map[string]time.Duration{"retention": c.Retention, "history-retention": c.HistoryRetention, "idle-after": c.IdleAfter,
		"saturated-after": c.SaturatedAfter, "stale-after": c.StaleAfter, "tick": c.Tick,
		"session-idle": c.SessionIdle, "session-max": c.SessionMax, "fleet-timeout": c.FleetTimeout,
		"scale-every": c.ScaleEvery})
}

// ctyunCredentials returns the key pair in CTYUN_AK and CTYUN_SK, else the one in the file
// path (if given), else none.
func ctyunCredentials(getenv func(string) string, path string) (ctyun.Credentials, error) {
	c, ok, err := ctyun.CredentialsFromEnv(getenv)
	if ok || err != nil || path == "" {
		return c, err
	}
	if c, err = ctyun.LoadCredentials(path); err != nil {
		return c, fmt.Errorf("--ctyun-credentials: %w", err)
	}
	return c, nil
}

// serve runs the server until ctx ends, then shuts down gracefully: stop accepting, finish
// requests, wait for the loops.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	clock := time.Now
	now := func() time.Time { return clock() }
	var demoClock *demo.Clock
	if cfg.Demo {
		demoClock = demo.NewClock(demo.Morning(time.Now()), cfg.DemoSpeed)
		clock = demoClock.Now
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
	// The pools' waits for a connection (go_sql_*) tell when the database is what runs out.
	for name, db := range store.SQLPools() {
		c := collectors.NewDBStatsCollector(db, name)
		if prometheus.Register(c) == nil {
			defer prometheus.Unregister(c)
		}
	}
	if cfg.Demo && cfg.dbSet {
		// A database the demo used before continues from where its clock stopped.
		last, err := store.LastStamp(ctx)
		if err != nil {
			return err
		}
		if !last.IsZero() {
			demoClock = demo.NewClock(last, cfg.DemoSpeed)
			clock = demoClock.Now
		}
	}
	if err := loadSecretKey(store, cfg, log); err != nil {
		return err
	}
	store.SetDataRoots(cfg.DataRoots)
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
			Now: now, Speed: cfg.DemoSpeed, Faults: cfg.DemoFaults, Logger: log, Tokens: demoTokens, Run: run, TimeZone: cfg.TimeZone})
		providers["sim"], cluster = sim.Provider(), demo.Cluster
	}
	// pastFilled closes once a fresh demo's past is filled (at once otherwise).
	pastFilled := make(chan struct{})
	if !demoFresh {
		close(pastFilled)
	}
	var weekly *control.Weekly
	if cfg.weekly != nil {
		weekly = &control.Weekly{Every: weeklyEvery, Policy: afterPast(notice.DefaultWeeklyPolicy(*cfg.weekly, cfg.Location), pastFilled),
			Reports: notice.BillingReports(store, phrase.Locale{Lang: cfg.Lang}, cfg.PublicURL)}
	}
	provider := cfg.SSO.oidc(cfg.PublicURL)
	var directoryChecks []control.Periodic
	if provider != nil && cfg.SSO.OIDCCheckEvery > 0 {
		directoryChecks = append(directoryChecks, control.Periodic{Name: "oidc check", Every: cfg.SSO.OIDCCheckEvery,
			Run: func(ctx context.Context) error { return checkOIDC(ctx, store, provider, cfg.SSO.Rules, now()) }})
	}
	loops := control.New(ctx, store, control.Config{Speed: speed, Tick: cfg.Tick, ScaleEvery: cfg.ScaleEvery,
		Location: cfg.Location, StaleAfter: cfg.StaleAfter, Providers: providers, Cluster: cluster, Channels: channels, PublicURL: cfg.PublicURL,
		Retention: cfg.Retention, History: models.Retention{Keep: cfg.HistoryRetention,
			Sessions: models.SessionLimits{Idle: cfg.SessionIdle, Absolute: cfg.SessionMax}},
		DataChecks: datacheck.Policy{Roots: cfg.DataRoots, AllowHosts: cfg.DataCheckAllowHosts},
		Words:      phrase.Locale{Lang: cfg.Lang}, Weekly: weekly, Archive: archiverOf(store, cfg, log), Directory: directoryChecks, Now: now, Logger: log})

	metricsCfg := metrics.Config{Now: now, Logger: log,
		Marks: models.GPUMarks{StaleAfter: cfg.StaleAfter, IdleAfter: cfg.IdleAfter, SaturatedAfter: cfg.SaturatedAfter}}
	collector := metrics.New(store, loops.Queue.Queue, metricsCfg)
	if err := prometheus.Register(collector); err != nil {
		return err
	}
	defer prometheus.Unregister(collector)
	buildInfo := metrics.BuildInfo(version)
	if err := prometheus.Register(buildInfo); err != nil {
		return err
	}
	defer prometheus.Unregister(buildInfo)
	money := prometheus.NewRegistry()
	money.MustRegister(metrics.NewMoney(metrics.MonthBills(store), metricsCfg))
	directory, err := cfg.SSO.ldap()
	if err != nil {
		return err
	}
	chats, err := cfg.SSO.chats(cfg.PublicURL)
	if err != nil {
		return err
	}
	h := web.NewAreas(store, loops.Queue, handlers.Config{JoinToken: cfg.JoinToken, IdleAfter: cfg.IdleAfter,
		SaturatedAfter: cfg.SaturatedAfter, StaleAfter: cfg.StaleAfter, TaskLimits: models.DefaultTaskLimits,
		Sessions:      models.SessionLimits{Idle: cfg.SessionIdle, Absolute: cfg.SessionMax},
		SecureCookies: strings.HasPrefix(cfg.PublicURL, "https://"), Demo: cfg.Demo, Location: cfg.Location,
		ScaleTrigger: loops.TriggerScale, Clusters: loops.Clusters(), Flavors: scaler.NewFlavors(providers, 0, now), Archive: cfg.Archive.Target,
		OIDC: provider, LDAP: directory, Chats: chats, SSORules: cfg.SSO.Rules, PasswordAdminsOnly: cfg.SSO.PasswordLogin == "admins", PublicURL: cfg.PublicURL,
		BoardShare: boardShare, Leads: notice.Leads{Store: store, Channels: notify.Under(cfg.PublicURL, channels)},
		Words: phrase.Locale{Lang: cfg.Lang}}, now)
	h.Metrics = metrics.Handler(prometheus.DefaultGatherer, money, cfg.metricsToken)
	e := web.New(h, strings.HasPrefix(cfg.PublicURL, "https://"), log)
	srv := web.Server(e)
	srv.RegisterOnShutdown(store.EndAssignmentWaits) // agents' long polls answer now, not at their wait's end
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("kashi serving", "url", "http://"+ln.Addr().String(), "db", dbLabel(cfg.DB), "demo", cfg.Demo)

	loopCtx, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	var running sync.WaitGroup
	running.Go(func() { loops.Lead(loopCtx) })
	if directory != nil {
		ldapLoops := loop.NewSet(1, log)
		ldapLoops.Every("ldap sync", cfg.SSO.LDAPSyncEvery, func(ctx context.Context) error {
			return syncLDAP(ctx, store, directory, cfg.SSO.Rules, now())
		})
		running.Go(func() { ldapLoops.Run(loopCtx) })
	}

	if sim != nil {
		running.Go(func() { sim.Run(loopCtx) })
		running.Go(func() { holdOnSignal(loopCtx, demoClock, log) })
	}
	if demoFresh {
		// The past fills beside the live demo, so that the demo starts at once.
		running.Go(func() {
			fillDemoPast(loopCtx, store, now(), log)
			close(pastFilled)
		})
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

// archiverOf is the archiver of --archive, nil without one.
func archiverOf(store *models.Store, cfg serveConfig, log *slog.Logger) *archive.Archiver {
	if cfg.archive == nil {
		return nil
	}
	st, _ := archive.Open(*cfg.archive) // checked when parsed
	dsn := ""
	if models.IsPostgresDSN(cfg.DB) {
		dsn = cfg.DB
	}
	log.Info("archiving", "to", cfg.archive.Target(), "endpoint", cfg.archive.Endpoint)
	return archive.New(store, st, archive.Options{Location: cfg.Location, BackupHour: cfg.Archive.BackupHour,
		BackupKeep: cfg.Archive.BackupKeep, DSN: dsn, Logger: log})
}

// holdOnSignal holds the demo's clock on SIGUSR1 and lets it go on SIGUSR2, until ctx ends:
// a presenter can walk through a page that does not change under them, and the agreement
// proof reads every page at one instant.
func holdOnSignal(ctx context.Context, clock *demo.Clock, log *slog.Logger) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(signals)
	for {
		select {
		case <-ctx.Done():
			return
		case sig := <-signals:
			if sig == syscall.SIGUSR1 {
				log.Info("demo clock held", "at", clock.Hold().UTC())
			} else {
				clock.Release()
				log.Info("demo clock released")
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
		var userData []byte
		if cfg.CtyunUserData != "" {
			var err error
			if userData, err = os.ReadFile(cfg.CtyunUserData); err != nil {
				return nil, fmt.Errorf("--ctyun-user-data: %w", err)
			}
		}
		p, err := ctyunstore.NewProvider(store, ctyun.Config{Credentials: cfg.ctyun, Endpoint: cfg.CtyunEndpoint,
			UserData: userData})
		if err != nil {
			return nil, err
		}
		out[ctyunstore.Provider] = p
	}
	return out, nil
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

// boardShare is how long one render of a board view serves all its viewers: under the
// board's refresh (5 s) and the agents' sampling (10 s), so a viewer sees each reading.
const boardShare = 2 * time.Second

// boardLag is how long the board may show nodes and holders from before the latest change
// while a fresh snapshot is read behind it; readings are as current as the shared render
// (boardShare).
const boardLag = time.Second

// defaultGCPercent is the server's GOGC: the runtime's own 100. It was 200, when that cut
// ingest p99 at 512 agents on Postgres from 57-72 to 47 ms; with the reads since made lighter
// that load is at 9-12 ms p99 either way, and at 4,096 agents 100 keeps the server's peak
// RSS at 443-463 MiB against 565-679 at 200, for the same CPU (BENCHMARKS.md, "Long polls
// waiting off the server's connections").
const defaultGCPercent = 100

// secretKeyFile is the key file kept next to a SQLite database when no --secret-key is given.
const secretKeyFile = "kashi-secret.key"

// loadSecretKey gives the store the key that seals secret environment values: --secret-key
// (base64 of 32 bytes) or, with SQLite, a key file beside the database, made on first run
// with mode 0600. With Postgres and no key, secret values are refused.
func loadSecretKey(store *models.Store, cfg serveConfig, log *slog.Logger) error {
	raw := cfg.SecretKey
	if raw == "" && models.IsPostgresDSN(cfg.DB) {
		log.Warn("no --secret-key: tasks cannot send secret environment values")
		return nil
	}
	if raw == "" {
		path := filepath.Join(filepath.Dir(strings.TrimPrefix(cfg.DB, "file:")), secretKeyFile)
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			key := make([]byte, models.SecretKeySize)
			rand.Read(key)
			b = []byte(base64.StdEncoding.EncodeToString(key))
			err = os.WriteFile(path, b, 0o600)
		}
		if err != nil {
			return fmt.Errorf("secret key file: %w", err)
		}
		raw = string(b)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("--secret-key: not base64: %w", err)
	}
	return store.SetSecretKey(key)
}

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

// afterPast holds pol's sends until filled closes: a fresh demo's weekly report waits for
// its past, which fills beside the live demo; sent before, the week due would be reported
// from a ledger without it, and claimed with nothing to say.
func afterPast(pol notice.WeeklyPolicy, filled <-chan struct{}) notice.WeeklyPolicy {
	planned := pol.Planned
	pol.Planned = func(after time.Time) time.Time {
		select {
		case <-filled:
			return planned(after)
		default:
			return time.Time{}
		}
	}
	return pol
}

// The weekly report's sending (--weekly-report).
const (
	// defaultWeeklyReport sends it on Mondays at 09:00.
	defaultWeeklyReport = "0 9 * * 1"
	// weeklyReportOff, as --weekly-report, sends none.
	weeklyReportOff = "off"
	// weeklyEvery is how often the weekly report's loop looks whether it is due.
	weeklyEvery = 5 * time.Minute
)
