package api

import "time"

// Alert is one alert in GET /api/v1/alerts, its sentence (Message) in the caller's language;
// TaskID, NodeID and Pool name what it is about, when it is about one.
type Alert struct {
	ID         int64      `json:"id"`
	Kind       string     `json:"kind"`
	Subject    string     `json:"subject"`
	Code       string     `json:"code"`
	Params     []string   `json:"params"`
	Message    string     `json:"message"`
	Severity   string     `json:"severity"`
	TaskID     int64      `json:"task_id,omitempty"`
	NodeID     int64      `json:"node_id,omitempty"`
	Pool       string     `json:"pool,omitempty"`
	FirstAt    time.Time  `json:"first_at"`
	LastAt     time.Time  `json:"last_at"`
	Count      int        `json:"count"`
	ResolvedAt *time.Time `json:"resolved_at"`
	SentAt     *time.Time `json:"sent_at"`
	AckedBy    string     `json:"acked_by,omitempty"`
	AckedAt    *time.Time `json:"acked_at"`
}
