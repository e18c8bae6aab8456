package pools

import "time"

// AlertsData is the alerts page: open alerts grouped by task or node, then recently resolved
// ones grouped by kind and task or node.
type AlertsData struct {
	Now      time.Time
	Open     []AlertGroup
	Resolved []ResolvedGroup
	// Notice confirms an acknowledgement.
	Notice string
}

// AlertGroup is the open alerts about one task, or one node, or one other subject: one row
// of the page.
type AlertGroup struct {
	// Key names the group in forms and tests: "task-12", "node-3" or "alert-40".
	Key    string
	TaskID int64
	NodeID int64
	// Node is the node's hostname, "" when unknown.
	Node string
	// Pool is the pool the alerts are about, for the link to the board; "" when none.
	Pool     string
	Severity string // the worst of the group's
	Alerts   []AlertView
	At       time.Time // the earliest first-seen
	LastAt   time.Time // the latest last-seen
	// Sent counts the alerts that reached chat.
	Sent int
	// Acked is true when every alert of the group is acknowledged; AckedBy and AckedAt are
	// the latest acknowledgement.
	Acked   bool
	AckedBy string
	AckedAt *time.Time
	// CanAck is true when the viewer may acknowledge the group.
	CanAck bool
}

// AlertView is one alert.
type AlertView struct {
	ID      int64
	Kind    string // a models.Alert* kind
	Subject string
	// Code and Params are its sentence (phrase.Locale.AlertSentence); Message is the text of
	// an alert raised before codes.
	Code     string
	Params   []string
	Message  string
	Severity string
	TaskID   int64
	NodeID   int64
	// Node is the hostname of node NodeID, "" when unknown.
	Node       string
	Pool       string
	At         time.Time
	LastAt     time.Time
	Count      int
	ResolvedAt *time.Time
	Sent       bool
	AckedBy    string
	AckedAt    *time.Time
}

// ResolvedGroup is the recently resolved alerts of one kind about one task, else one node,
// else one subject: one row of the page, its alerts listed when opened.
type ResolvedGroup struct {
	// Key names the group in tests: the kind, then "task-12", "node-3" or "alert-40".
	Key    string
	Kind   string
	TaskID int64
	NodeID int64
	// Node is the node's hostname, "" when unknown.
	Node string
	// Alerts are the group's alerts, the latest first.
	Alerts []AlertView
	At     time.Time // the earliest first-seen
	LastAt time.Time // the latest last-seen
	// ResolvedAt is the latest resolution.
	ResolvedAt time.Time
	// Times counts how often the group's alerts were raised; Sent those that reached chat.
	Times, Sent int
}
