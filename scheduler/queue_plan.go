package scheduler

import (
	"context"
	"time"
)

// QueuePlan is the queue's snapshot and plan at now, as a tick would decide them, without
// applying anything: the scaling loop reads its demand from the plan's waiting tasks
// (ScalerConfig.Queue).
func (l *Loop) QueuePlan(ctx context.Context, now time.Time) (Snapshot, Plan, error) {
	snap, _, err := l.Snapshot(ctx, now)
	if err != nil {
		return Snapshot{}, Plan{}, err
	}
	return snap, Decide(snap, now, l.cfg.Policy), nil
}
