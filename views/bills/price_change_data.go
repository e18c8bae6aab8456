package bills

import (
	"time"

	"kashi/views"
)

// PriceChangeData is the page of a price change (/prices/changes/ID): the bills' lines of
// its spec in its month against the month before, and its month at the old rates and the
// new.
type PriceChangeData struct {
	ID int64
	// Name names the change ("Price of A100 from 2026-04"); Project is "" for the default list.
	Name, Project                  string
	OldRateFen, NewRateFen         int64
	OldOverflowFen, NewOverflowFen int64
	// Computing: the measure runs in the background; the page polls for it.
	Computing bool
	// Ready: a day of its month has passed; the figures below are absent before.
	Ready bool
	// From, At, To: the month before is [From, At), the price's month as measured [At, To).
	From, At, To  time.Time
	Before, After views.PeriodFigures
	// OldFen, NewFen: the price's month as measured, billed at the old rates and the new.
	OldFen, NewFen int64
	// Sentence is the price list's line: "Billed ¥N less than at the old price".
	Sentence string
}
