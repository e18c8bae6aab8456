package models

import (
	"time"

	"gorm.io/gorm"
)

// MaxReportAge is how far behind the server's clock an agent's sample or task status may be:
// two days, room for an agent's spool over an outage, not for rewriting past months.
const MaxReportAge = 48 * time.Hour

// reportFloor is the earliest time an agent's report may speak of at now: MaxReportAge ago,
// and never inside a period an issued bill froze.
func reportFloor(tx *gorm.DB, now time.Time) (time.Time, error) {
	floor := now.Add(-MaxReportAge)
	var ends []time.Time
	if err := tx.Model(&IssuedBill{}).Order("period_end DESC").Limit(1).Pluck("period_end", &ends).Error; err != nil {
		return floor, err
	}
	if len(ends) > 0 && ends[0].After(floor) {
		floor = UTC(ends[0])
	}
	return floor, nil
}
