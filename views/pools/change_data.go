package pools

import (
	"time"

	"kashi/views"
)

// ChangeData is the before/after page of one version of a pool's settings
// (/pools/NAME/changes/V): the period after against the period before, and the period after
// replayed under the old settings and the new.
type ChangeData struct {
	Now     time.Time
	Pool    string
	Version int
	At      time.Time
	By      string
	Note    string
	Changes []ConfigChange
	// Computing: the measure below runs in the background; the page polls for it.
	Computing bool
	// Ready: a day has passed since the change; the figures below are absent before.
	Ready bool
	// ReadyAt is when the effect is first measured.
	ReadyAt  time.Time
	From, To time.Time
	Before   views.PeriodFigures
	After    views.PeriodFigures
	Counter  views.CounterView
	// Sentence is the version list's line: "This change saved ¥N (−x % idle hours, waits +y)".
	Sentence string
	// BeforeURL and AfterURL are the pilot reviews of the two periods.
	BeforeURL, AfterURL string
}
