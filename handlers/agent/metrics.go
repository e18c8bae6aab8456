package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of the agent API, served at /metrics.
var (
	samplesStored = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_samples_stored_total", Help: "GPU samples stored from agents."})
	samplesDuplicate = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_samples_duplicate_total", Help: "GPU samples received again and ignored."})
	samplesDropped = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_samples_dropped_total", Help: "GPU samples agents' spools dropped while the server was away."})
)
