package api

import "time"

// Service is an inference service over a range, as GET /api/v1/services shows it (the
// Models page's line). Unknown figures are null; costs are null to whoever may not read the
// project's bills.
type Service struct {
	ID               int64    `json:"id"`
	Project          string   `json:"project"`
	Name             string   `json:"name"`
	Owner            string   `json:"owner"`
	Model            string   `json:"model"`
	Spec             string   `json:"spec"`
	Replicas         int      `json:"replicas"`
	Live             int      `json:"live"`
	GPUs             int      `json:"gpus"`
	Failing          int      `json:"failing"`
	RequestsPerS     float64  `json:"requests_per_s"`
	OutputTokensPerS float64  `json:"output_tokens_per_s"`
	TTFTP50S         *float64 `json:"ttft_p50_s"`
	TTFTP95S         *float64 `json:"ttft_p95_s"`
	TTFTP99S         *float64 `json:"ttft_p99_s"`
	E2EP95S          *float64 `json:"e2e_p95_s"`
	UtilPct          *int     `json:"util_pct"`
	CardSeconds      int64    `json:"card_seconds"`
	IdleCardSeconds  int64    `json:"idle_card_seconds"`
	CostFen          *int64   `json:"cost_fen"`
	CostPerMTokFen   *int64   `json:"cost_per_mtok_fen"`
	NoTraffic        bool     `json:"no_traffic"`
	// Points are the range in equal parts for charts over time, as the page draws them.
	Points []ServicePoint `json:"points"`
}

// ServicePoint is one part of a service's range: its start, TTFT p95 and cost per
// million output tokens (null when unknown or not the caller's to see).
type ServicePoint struct {
	At             time.Time `json:"at"`
	TTFTP95S       *float64  `json:"ttft_p95_s"`
	CostPerMTokFen *int64    `json:"cost_per_mtok_fen"`
}
