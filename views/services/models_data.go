package services

import "time"

// ModelsData is the Models page (模型服务): each inference service over a range.
type ModelsData struct {
	// Range is the range shown (one of HistoryRanges); From and To bound it.
	Range    string
	From, To time.Time
	Services []ServiceRow
}

// ServiceRow is one service on the Models page. A figure that cannot be known is nil: a
// percentile with no request in the range (or a server that exposes none), utilization with
// no reading, a cost the viewer may not see or without a price.
type ServiceRow struct {
	ID                   int64
	Project, Name, Model string
	Owner                string
	Spec                 string
	// Replicas asked; Live now, holding GPUs; Failing live replicas whose page did not
	// answer at the last scrape, with FailingError the first's error.
	Replicas, Live, GPUs int
	Failing              int
	FailingError         string
	// Requests per second and output (generated) tokens per second over the range.
	RequestsPerS, TokensPerS float64
	// TTFT percentiles and E2E p95, in seconds; Narrowed when replicas' buckets differed.
	TTFTP50, TTFTP95, TTFTP99, E2EP95 *float64
	Narrowed                          bool
	// UtilPct is the mean utilization of the cards the replicas held in the range.
	UtilPct *int
	// CardSeconds held in the range; CostFen their price, and CostPerMTokFen per million
	// output tokens.
	CardSeconds             int64
	CostFen, CostPerMTokFen *int64
	// CostHidden is true when the viewer may not see the project's costs; Unpriced when the
	// spec has no price for the project. Either leaves the costs nil.
	CostHidden, Unpriced bool
	// IdleCardSeconds is the part of CardSeconds held in 5-minute windows without a request.
	IdleCardSeconds int64
	// NoTraffic is true when the service held cards the whole range and served no request.
	NoTraffic bool
	// Points are the range in equal parts, oldest first, for the charts over time.
	Points []ServicePoint
}

// ServicePoint is one part of the range: from At, the TTFT p95 in seconds and the cost per
// million output tokens (nil without a request, a token, or a cost the viewer may see).
type ServicePoint struct {
	At             time.Time
	TTFTP95        *float64
	CostPerMTokFen *int64
}
