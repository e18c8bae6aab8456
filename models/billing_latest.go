package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// LastHeldBefore is the latest moment before cut that a card was held by a task of the
// projects (nil: all): cut itself when an allocation was open at cut; ok is false when no
// card was held before cut. Pages open on the latest period with data by it.
func (s *Store) LastHeldBefore(ctx context.Context, projectIDs []int64, cut time.Time) (at time.Time, ok bool, err error) {
	cut = UTC(cut)
	db := s.db.WithContext(ctx).Table("allocations").Where("started_at < ?", cut)
	if projectIDs != nil {
		db = db.Where("project_id IN ?", append(projectIDs, -1))
	}
	db = db.Session(&gorm.Session{}) // the two queries below each start from here
	var open int64
	if err := db.Where("ended_at IS NULL OR ended_at >= ?", cut).Count(&open).Error; err != nil {
		return time.Time{}, false, fmt.Errorf("models: last held before %s: %w", cut, err)
	}
	if open > 0 {
		return cut, true, nil
	}
	var v any
	if err := db.Select(s.unixCol("MAX(ended_at)", true)).Row().Scan(&v); err != nil {
		return time.Time{}, false, fmt.Errorf("models: last held before %s: %w", cut, err)
	}
	sec, err := valueTime(v, true)
	if err != nil || sec == 0 {
		return time.Time{}, false, err
	}
	return time.Unix(sec, 0).UTC(), true, nil
}
