package models

import (
	"context"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // zones resolve on hosts without a zoneinfo database

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// BillingSettings returns the billing settings, with the default zone when none are stored.
func (s *Store) BillingSettings(ctx context.Context) (BillingSettings, error) {
	var bs BillingSettings
	err := s.db.WithContext(ctx).Where("id = 1").Take(&bs).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return BillingSettings{ID: 1, TimeZone: DefaultBillingTimeZone}, nil
	}
	if err != nil {
		return bs, fmt.Errorf("models: billing settings: %w", err)
	}
	return bs, nil
}

// SetBillingSettings stores the billing zone and the metering thresholds (zero thresholds
// mean the defaults), and makes the thresholds the ones the store applies from now on: new
// readings' idle timers and new rollups, each of which records them. Past rollups keep the
// thresholds that classified them, and issued bills keep theirs, so a change never mixes
// definitions in what was already counted. Errors are FieldErrors naming the field.
func (s *Store) SetBillingSettings(ctx context.Context, actor string, bs BillingSettings, now time.Time) error {
	if bs.TimeZone == "" || len(bs.TimeZone) > 64 {
		return fieldErr("time_zone", "must be an IANA zone name such as Asia/Shanghai")
	}
	if _, err := time.LoadLocation(bs.TimeZone); err != nil {
		return fieldErr("time_zone", "unknown zone %q", bs.TimeZone)
	}
	th := bs.Metering()
	switch {
	case bs.IdleUtilPct < 0 || bs.IdleUtilPct > 99:
		return fieldErr("idle_util_pct", "must be 1 to 99 (0: the default %d), got %d", DefaultThresholds.IdleUtilPct, bs.IdleUtilPct)
	case bs.ActiveUtilPct < 0 || bs.ActiveUtilPct > 100:
		return fieldErr("active_util_pct", "must be 1 to 100 (0: the default %d), got %d", DefaultThresholds.ActiveUtilPct, bs.ActiveUtilPct)
	case th.ActiveUtilPct <= th.IdleUtilPct:
		return fieldErr("active_util_pct", "must be above the idle threshold %d, got %d", th.IdleUtilPct, th.ActiveUtilPct)
	}
	bs.ID, bs.UpdatedAt = 1, UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var before BillingSettings
		if err := tx.Where("id = 1").Take(&before).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "id"}},
			DoUpdates: clause.AssignmentColumns([]string{"time_zone", "idle_util_pct", "active_util_pct", "updated_at"}),
		}).Create(&bs).Error
		if err != nil {
			return err
		}
		return audit(tx, now, actor, "billing.settings", nil, "billing", before, bs)
	})
	if err != nil {
		return fmt.Errorf("models: set billing settings: %w", err)
	}
	s.metering.Store(&th)
	return nil
}

// checkMonth is a FieldError unless month is "YYYY-MM" with a real month.
func checkMonth(field, month string) error {
	if len(month) != 7 {
		return fieldErr(field, "must be a month as YYYY-MM")
	}
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return fieldErr(field, "must be a month as YYYY-MM; %q is none", month)
	}
	// The same years as billing.ParseMonth (models may not import billing).
	if t.Year() < 2000 || t.Year() > 2999 {
		return fieldErr(field, "must be a month of the years 2000 to 2999, got %q", month)
	}
	return nil
}
