// Package metrics exports Kashi's current state to Prometheus for dashboards and alerts: a
// Collector reads the board's snapshot, the queue view, the pools' latest sizes and the
// month's bills on each scrape, so /metrics costs no query of samples or allocations beyond
// what those views already keep. The counters of events (scaling actions, reclaims, queue
// waits) live where the events happen, in packages scaler and scheduler.
package metrics
