package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm/clause"
)

// WeeklyReport records that the weekly report of an ISO week ("2026-W10") went out: the
// row is the claim, so that a restart or a second replica does not send it again.
type WeeklyReport struct {
	Week      string `gorm:"primaryKey"`
	ClaimedAt time.Time
}

func (WeeklyReport) TableName() string { return "weekly_reports" }

// WeeklyReportClaimed reports whether the report of week was claimed already.
func (s *Store) WeeklyReportClaimed(ctx context.Context, week string) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&WeeklyReport{}).Where("week = ?", week).Count(&n).Error; err != nil {
		return false, fmt.Errorf("models: weekly report %s: %w", week, err)
	}
	return n > 0, nil
}

// ClaimWeeklyReport claims the sending of week's report at now: true for the one caller
// whose insert made the row, false for every other, at once or later, on either database.
func (s *Store) ClaimWeeklyReport(ctx context.Context, week string, now time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).
		Create(&WeeklyReport{Week: week, ClaimedAt: UTC(now)})
	if res.Error != nil {
		return false, fmt.Errorf("models: claim weekly report %s: %w", week, res.Error)
	}
	return res.RowsAffected == 1, nil
}
