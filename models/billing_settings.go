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

// SetBillingTimeZone stores the zone months are cut in. An unknown zone is a FieldError.
// Bills already issued keep the zone they were issued in.
func (s *Store) SetBillingTimeZone(ctx context.Context, zone string, now time.Time) error {
	if zone == "" || len(zone) > 64 {
		return fieldErr("time_zone", "must be an IANA zone name such as Asia/Shanghai")
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return fieldErr("time_zone", "unknown zone %q", zone)
	}
	row := BillingSettings{ID: 1, TimeZone: zone, UpdatedAt: UTC(now)}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{"time_zone", "updated_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("models: set billing time zone: %w", err)
	}
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
