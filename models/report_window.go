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
	issued, err := issuedUntil(tx)
	return reportFloorAt(now, issued), err
}

// issuedUntil is the end of the latest period an issued bill froze (zero when none).
func issuedUntil(tx *gorm.DB) (time.Time, error) {
	var ends []time.Time
	if err := tx.Model(&IssuedBill{}).Order("period_end DESC").Limit(1).Pluck("period_end", &ends).Error; err != nil {
		return time.Time{}, err
	}
	if len(ends) == 0 {
		return time.Time{}, nil
	}
	return UTC(ends[0]), nil
}

// reportFloorAt is reportFloor given issuedUntil's answer.
func reportFloorAt(now, issued time.Time) time.Time {
	floor := now.Add(-MaxReportAge)
	if issued.After(floor) {
		return issued
	}
	return floor
}
