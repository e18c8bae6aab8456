package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kashi/billing"
)

// MonthBills returns a BillsFunc computing the bills of the month of now (in the billing
// time zone) from src, as the bills page does.
func MonthBills(src billing.Source) BillsFunc {
	return func(ctx context.Context, now time.Time) ([]billing.Bill, error) {
		loc, err := billing.Location(ctx, src)
		if err != nil {
			return nil, err
		}
		res, err := billing.MonthBills(ctx, src, now.In(loc).Format("2006-01"), now)
		return res.Bills, err
	}
}

// billCache keeps the month's bills for a while: computing them reads the month's ledger.
type billCache struct {
	read  BillsFunc
	every time.Duration
	mu    sync.Mutex
	at    time.Time
	bills []billing.Bill
}

// get returns bills no older than every; one scrape at a time computes them.
func (b *billCache) get(ctx context.Context, now time.Time) ([]billing.Bill, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.at.IsZero() && now.Sub(b.at) < b.every && !now.Before(b.at) {
		return b.bills, nil
	}
	bills, err := b.read(ctx, now)
	if err != nil {
		return nil, err
	}
	b.at, b.bills = now, bills
	return bills, nil
}

// Money is a prometheus.Collector of the month's money: card-seconds by billing class and
// bill totals, by project. A project's bill is for its people and finance, not for whoever
// can reach /metrics: Handler serves Money only to a scrape that presents the scrape token.
type Money struct {
	cfg    Config
	bills  billCache
	failed *prometheus.CounterVec
}

// NewMoney returns the money collector over the month's bills.
func NewMoney(bills BillsFunc, cfg Config) *Money {
	cfg = cfg.withDefaults()
	return &Money{cfg: cfg, bills: billCache{read: bills, every: cfg.BillsEvery}, failed: scrapeErrors("bills")}
}

// Describe sends the money's families.
func (m *Money) Describe(ch chan<- *prometheus.Desc) {
	ch <- cardSecondsDesc
	ch <- billDesc
	m.failed.Describe(ch)
}

// Collect reads the month's bills (at most once per BillsEvery) and sends them.
func (m *Money) Collect(ch chan<- prometheus.Metric) {
	collectParts(m.cfg, ch, m.failed, []part{{"bills", m.collectBills}})
}

// collectBills sends the month's card-seconds by class and bill totals. The card-seconds are
// a gauge, not a counter: they restart with the month, and late readings move seconds
// between classes (no-data becomes active), so no series is monotonic.
func (m *Money) collectBills(ctx context.Context, now time.Time, ch chan<- prometheus.Metric) error {
	bills, err := m.bills.get(ctx, now)
	if err != nil {
		return err
	}
	seconds, totals := byProject{}, byProject{}
	for _, b := range bills {
		totals.add(b.Project, rest{}, float64(b.TotalFen)/100)
		for _, l := range b.Lines {
			for class, s := range map[string]int64{"setup": l.Setup, "active": l.Active, "serving": l.Serving, "low_util": l.LowUtil,
				"idle": l.Idle, "no_data": l.NoData, "rerun": l.Rerun, "trial": l.Trial} {
				if s != 0 {
					seconds.add(b.Project, rest{l.Spec, class}, float64(s))
				}
			}
		}
	}
	m.cfg.sendProjects(ch, cardSecondsDesc, seconds, func(p string, r rest) []string { return []string{p, r[0], r[1]} })
	m.cfg.sendProjects(ch, billDesc, totals, func(p string, _ rest) []string { return []string{p} })
	return nil
}
