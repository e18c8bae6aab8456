package models

import "gorm.io/gorm"

// Frozen structs of migration 7 (metering thresholds): the new columns only.
type (
	v7BillingSettings struct {
		IdleUtilPct   int `gorm:"not null;default:0"`
		ActiveUtilPct int `gorm:"not null;default:0"`
	}
	v7GPURollup struct {
		// IdlePct and ActivePct are the thresholds that classified the bucket; 0 for buckets
		// rolled up before they were recorded (the defaults then: 10 and 40).
		IdlePct   int `gorm:"not null;default:0"`
		ActivePct int `gorm:"not null;default:0"`
	}
)

func (v7BillingSettings) TableName() string { return "billing_settings" }
func (v7GPURollup) TableName() string       { return "gpu_rollups" }

// migrateV7Thresholds makes the idle and active thresholds billing settings and records on
// each rollup the thresholds that classified it.
func migrateV7Thresholds(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, c := range []struct {
		model any
		field string
	}{
		{&v7BillingSettings{}, "IdleUtilPct"}, {&v7BillingSettings{}, "ActiveUtilPct"},
		{&v7GPURollup{}, "IdlePct"}, {&v7GPURollup{}, "ActivePct"},
	} {
		if err := m.AddColumn(c.model, c.field); err != nil {
			return err
		}
	}
	return nil
}
