package scheduler

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of the scheduler loop, served at /metrics.
var (
	tickSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Name: "kashi_scheduler_tick_seconds", Help: "Duration of one scheduler tick.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)})
	tasksPlaced = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_tasks_placed_total", Help: "Tasks given GPUs by the scheduler."})
	tasksWaiting = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "kashi_tasks_waiting", Help: "Tasks waiting after the last tick."})
)
