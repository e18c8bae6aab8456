package scheduler

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"kashi/models"
)

// Prometheus metrics of the scheduler loop, served at /metrics.
var (
	tickSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Name: "kashi_scheduler_tick_seconds", Help: "Duration of one scheduler tick.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)})
	tasksPlaced = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_tasks_placed_total", Help: "Tasks given GPUs by the scheduler."})
)

// queueWait is the time from submit to placement of the tasks placed, by lane.
var queueWait = promauto.NewHistogramVec(prometheus.HistogramOpts{
	Name: "kashi_queue_wait_seconds", Help: "Time from submit to placement of placed tasks, by lane.",
	Buckets: []float64{10, 30, 60, 120, 300, 600, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 24 * 3600}},
	[]string{"lane"})

func init() {
	for _, lane := range models.Lanes {
		queueWait.WithLabelValues(lane)
	}
}

// observeWaits records the wait of each task of plan placed at now.
func observeWaits(snap Snapshot, plan Plan, now time.Time) {
	placed := make(map[int64]bool, len(plan.Placements))
	for _, p := range plan.Placements {
		placed[p.TaskID] = true
	}
	for _, t := range snap.Pending {
		if placed[t.ID] {
			queueWait.WithLabelValues(t.Queue).Observe(now.Sub(t.SubmittedAt).Seconds())
		}
	}
}
