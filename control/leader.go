package control

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"kashi/models"
)

// leading is 1 while this replica holds the leader lock and runs the control loops: across
// the replicas of one database it sums to 1 but for the moments of a hand-over.
var leading = promauto.NewGauge(prometheus.GaugeOpts{
	Name: "kashi_leader", Help: "1 while this replica holds the leader lock and runs the control loops, else 0."})

// leaderEvery is how often a replica without the lock tries to take it, and the holder checks
// it still has it.
const leaderEvery = 10 * time.Second

// Lead runs the loops while this replica holds the leader lock, until ctx ends: with Postgres
// several replicas may serve, and only the holder of the advisory lock runs the loops. Losing
// the lock stops them; they start again once the lock is taken again.
func (l *Loops) Lead(ctx context.Context) {
	for {
		lk, err := l.store.LeaderLock(ctx, models.LeaderLockKey)
		switch {
		case err != nil && ctx.Err() == nil:
			l.log.Error("leader lock", "err", err)
		case lk != nil:
			runWhileLeading(ctx, lk, l.log, l.run)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(leaderEvery):
		}
	}
}

// run runs the loops until ctx ends, then waits for the Kubernetes pools' controllers, which
// the loops started, to stop: the lock is released only after, so that two replicas' never
// act on one cluster at once.
func (l *Loops) run(ctx context.Context) {
	l.set.Run(ctx)
	l.clusters.Stop()
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
