package projects

import (
	"time"

	"kashi/views"
)

// QuotaChangeData is the page of a change of a project's quota
// (/projects/ID/quota-changes/C): the project's figures on the quota's pools in the period
// after against the period before, and the period after replayed under the old quota and
// the new.
type QuotaChangeData struct {
	ProjectID, ID int64
	// Name names the change ("Quota of vision on A100-80G").
	Name     string
	By, Note string
	At       time.Time
	// The quota's limit, guarantee (cards) and budget (card-hours) before and after.
	OldMax, NewMax               int
	OldGuaranteed, NewGuaranteed int
	OldBudget, NewBudget         int64
	// Computing: the measure runs in the background; the page polls for it.
	Computing bool
	// Ready: a day has passed since the change; the figures below are absent before.
	Ready         bool
	From, To      time.Time
	Before, After views.PeriodFigures
	Counter       views.CounterView
	// Sentence is the list's line: "This change saved ¥N (−x % idle hours, waits +y)".
	Sentence string
}

// ChangeRow is a change of a project's quota or idle reclaim as the projects page lists it:
// Label says what changed, URL is its page; Measured: the list loads what it saved.
type ChangeRow struct {
	URL, Label, By string
	At             time.Time
	Measured       bool
}
