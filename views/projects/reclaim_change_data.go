package projects

import (
	"time"

	"kashi/views"
)

// ReclaimChangeData is the page of a change of a project's idle-reclaim override
// (/projects/ID/reclaim-changes/C): the project's figures on every pool in the period after
// against the period before, and its tasks of the period after re-evaluated under the old
// override and the new.
type ReclaimChangeData struct {
	ProjectID, ID int64
	// Name names the change ("Idle reclaim of vision").
	Name string
	By   string
	At   time.Time
	// Fields are the override's fields, before and after, as words.
	Fields []ReclaimField
	// Computing: the measure runs in the background; the page polls for it.
	Computing bool
	// Ready: a day has passed since the change; the figures below are absent before.
	Ready         bool
	From, To      time.Time
	Before, After views.PeriodFigures
	Counter       views.CounterView
	// Sentence is the list's line: "This change saved ¥N (−x % idle hours, tasks reclaimed
	// a → b)".
	Sentence string
}

// ReclaimField is one field of an idle-reclaim override, before and after, as words.
type ReclaimField struct {
	Label, Before, After string
	// Short is the field's new value in short, for a list of changes ("notice 15m").
	Short string
}
