package scaler

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of the scaling loop, served at /metrics. Labels take the typed action
// kinds and reasons only, so their sets stay bounded.
var (
	scalingEvents = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "kashi_scaling_events_total", Help: "Scaling actions applied to pools, by action and reason."},
		[]string{"action", "reason"})
	reclaimNotices = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_reclaim_notices_total", Help: "Notices sent to owners of tasks whose cards stayed idle."})
	reclaims = promauto.NewCounter(prometheus.CounterOpts{
		Name: "kashi_reclaims_total", Help: "Idle tasks stopped after a notice had no answer."})
)

// countAction counts an applied action: a reclaim notice, a reclaim, or a scaling event.
// Withdrawn notices are counted nowhere.
func countAction(a Action) {
	switch a.Kind {
	case ActionIdleNotice:
		reclaimNotices.Inc()
	case ActionReclaim:
		reclaims.Inc()
	case ActionClearNotice:
	default:
		scalingEvents.WithLabelValues(string(a.Kind), string(a.Reason)).Inc()
	}
}
