package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kashi/api"
	"kashi/billing"
	"kashi/models"
	"kashi/scheduler"
)

// Store is what the collector reads of models.Store.
type Store interface {
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	LatestPoolSizes(ctx context.Context) (map[int64]models.PoolSizeSample, error)
	PoolScaleStates(ctx context.Context) (map[int64]models.PoolScaleState, error)
}

// QueueFunc returns the queue as the scheduler's last tick left it; scheduler.Loop.Queue is
// one.
type QueueFunc func(ctx context.Context, now time.Time) (scheduler.QueueView, error)

// BillsFunc returns the bills of the month of now, so far; see MonthBills.
type BillsFunc func(ctx context.Context, now time.Time) ([]billing.Bill, error)

// Config configures a Collector.
type Config struct {
	// Marks classify the cards as the board does.
	Marks models.GPUMarks
	// MaxProjects caps the projects with their own label; zero means DefaultMaxProjects.
	MaxProjects int
	// BillsEvery is how long the month's bills are reused; zero means a minute.
	BillsEvery time.Duration
	Now        func() time.Time
	Logger     *slog.Logger
}

// Collector is a prometheus.Collector of Kashi's current state (see the package doc); the
// month's money is Money's.
type Collector struct {
	store  Store
	queue  QueueFunc
	cfg    Config
	failed *prometheus.CounterVec
}

// New returns a collector over store and the queue.
func New(store Store, queue QueueFunc, cfg Config) *Collector {
	cfg = cfg.withDefaults()
	return &Collector{store: store, queue: queue, cfg: cfg, failed: scrapeErrors("board", "queue", "pools")}
}

// scrapeErrors is kashi_metrics_scrape_errors_total over parts, every part a series from
// the start.
func scrapeErrors(parts ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kashi_metrics_scrape_errors_total",
		Help: "Scrapes in which a part of the page could not be read (and was left out), by part."}, []string{"part"})
	for _, p := range parts {
		v.WithLabelValues(p)
	}
	return v
}

// withDefaults fills the zero fields of cfg.
func (cfg Config) withDefaults() Config {
	if cfg.MaxProjects <= 0 {
		cfg.MaxProjects = DefaultMaxProjects
	}
	if cfg.BillsEvery <= 0 {
		cfg.BillsEvery = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// The collector's metric families.
var (
	gpusDesc          = desc("kashi_gpus", "GPUs by pool, spec and state (free, busy, idle, stale).", "pool", "spec", "state")
	heldDesc          = desc("kashi_project_gpus_held", "GPUs held by running tasks, by project and spec, as the scheduler counts them against quotas.", "project", "spec")
	idleHeldDesc      = desc("kashi_idle_gpus_held", "GPUs held by a task and idle, by pool.", "pool")
	idleLongestDesc   = desc("kashi_idle_gpu_longest_seconds", "The longest time a held GPU of the pool has been idle.", "pool")
	queueDesc         = desc("kashi_queue_tasks", "Tasks waiting in the queue after the last scheduler tick, by lane.", "lane")
	queueReasonDesc   = desc("kashi_queue_waiting_tasks", "Tasks waiting in the queue after the last scheduler tick, by why they wait.", "reason")
	poolSizeDesc      = desc("kashi_pool_size_nodes", "Nodes of the pool at the scaling loop's last tick.", "pool")
	poolDesiredDesc   = desc("kashi_pool_desired_nodes", "Nodes the scaling loop wants the pool to have.", "pool")
	poolDemandDesc    = desc("kashi_pool_demand_gpus", "GPUs of ready demand waiting for the pool.", "pool")
	poolFailingDesc   = desc("kashi_pool_failing", "1 while the pool asks for no machine after too many failed to boot in a row, until an admin resumes it; else 0.", "pool")
	bootFailuresDesc  = desc("kashi_pool_boot_failures", "The pool's machines that failed to boot in a row.", "pool")
	cardSecondsDesc   = desc("kashi_month_card_seconds", "Card-seconds of the current month so far, by project, spec and class; restarts each month.", "project", "spec", "class")
	billDesc          = desc("kashi_month_bill_yuan", "Bill totals of the current month so far, by project, in yuan.", "project")
	ingestLagDesc     = desc("kashi_ingest_lag_seconds", "Seconds since the newest GPU sample stored.")
	collectorFamilies = []*prometheus.Desc{gpusDesc, heldDesc, idleHeldDesc, idleLongestDesc, queueDesc, queueReasonDesc, poolSizeDesc,
		poolDesiredDesc, poolDemandDesc, poolFailingDesc, bootFailuresDesc, ingestLagDesc}
)

// Describe sends the descriptors of every family.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range collectorFamilies {
		ch <- d
	}
	c.failed.Describe(ch)
}

// Collect reads the current state and sends it. A part that cannot be read is logged and
// left out, and kashi_metrics_scrape_errors_total counts it.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	collectParts(c.cfg, ch, c.failed, []part{{"board", c.collectBoard}, {"queue", c.collectQueue}, {"pools", c.collectPools}})
}

// part is one part of a scrape: its name in kashi_metrics_scrape_errors_total and how it is
// read.
type part struct {
	name    string
	collect func(context.Context, time.Time, chan<- prometheus.Metric) error
}

// collectParts reads each part; a part that cannot be read is logged, left out and counted in
// failed, which it sends last.
func collectParts(cfg Config, ch chan<- prometheus.Metric, failed *prometheus.CounterVec, parts []part) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := cfg.Now()
	for _, p := range parts {
		if err := p.collect(ctx, now, ch); err != nil {
			cfg.Logger.Warn("metrics", "part", p.name, "err", err)
			failed.WithLabelValues(p.name).Inc()
		}
	}
	failed.Collect(ch)
}

// collectQueue sends the waiting tasks per lane and per reason, every lane and reason a
// series (at zero when no task is in it), and the cards each project holds as the scheduler
// counts them against its quotas (the queue's scheduler.QuotaUse, which the pages show).
func (c *Collector) collectQueue(ctx context.Context, now time.Time, ch chan<- prometheus.Metric) error {
	view, err := c.queue(ctx, now)
	if err != nil {
		return err
	}
	held := byProject{}
	for project, u := range view.Use {
		for spec, n := range u.BySpec {
			held.add(project, rest{spec}, float64(n))
		}
	}
	c.cfg.sendProjects(ch, heldDesc, held, func(p string, r rest) []string { return []string{p, r[0]} })
	waiting := make(map[string]int, len(models.Lanes))
	for _, lane := range models.Lanes {
		waiting[lane] = 0
	}
	reasons := make(map[api.WaitReason]int, len(api.WaitReasons()))
	for _, r := range api.WaitReasons() {
		reasons[r] = 0
	}
	for _, e := range view.Entries {
		if !e.Starting {
			waiting[e.Lane]++
			reasons[api.WaitReason(e.Reason)]++
		}
	}
	for lane, n := range waiting {
		ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(n), lane)
	}
	for r, n := range reasons {
		ch <- prometheus.MustNewConstMetric(queueReasonDesc, prometheus.GaugeValue, float64(n), string(r))
	}
	return nil
}

// collectPools sends each configured pool's latest size, desired size and demand, and
// whether it fails to boot machines (every pool a series, at 0 while it does not).
func (c *Collector) collectPools(ctx context.Context, _ time.Time, ch chan<- prometheus.Metric) error {
	pools, err := c.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	sizes, err := c.store.LatestPoolSizes(ctx)
	if err != nil {
		return err
	}
	states, err := c.store.PoolScaleStates(ctx)
	if err != nil {
		return err
	}
	for _, p := range pools {
		st, failing := states[p.ID], 0.0
		if st.FailingSince != nil {
			failing = 1
		}
		ch <- prometheus.MustNewConstMetric(poolFailingDesc, prometheus.GaugeValue, failing, p.Name)
		ch <- prometheus.MustNewConstMetric(bootFailuresDesc, prometheus.GaugeValue, float64(st.BootFailures), p.Name)
		sz, ok := sizes[p.ID]
		if !ok {
			continue
		}
		ch <- prometheus.MustNewConstMetric(poolSizeDesc, prometheus.GaugeValue, float64(sz.Size), p.Name)
		ch <- prometheus.MustNewConstMetric(poolDesiredDesc, prometheus.GaugeValue, float64(sz.Desired), p.Name)
		ch <- prometheus.MustNewConstMetric(poolDemandDesc, prometheus.GaugeValue, float64(sz.DemandGPUs), p.Name)
	}
	return nil
}

// sendProjects sends a project family capped to cfg's number of projects; labels takes the
// project and the rest to the label values.
func (cfg Config) sendProjects(ch chan<- prometheus.Metric, d *prometheus.Desc, b byProject, labels func(string, rest) []string) {
	for project, series := range b.capped(cfg.MaxProjects) {
		for r, v := range series {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels(project, r)...)
		}
	}
}
