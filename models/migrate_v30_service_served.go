package models

import "gorm.io/gorm"

// v30ServiceServed is migration 30's frozen record of a 5-minute bucket in which a service
// served a request, kept when the service's rollup of that bucket is pruned: bills class a
// service's card time by it (ServiceServing).
type v30ServiceServed struct {
	ServiceID int64 `gorm:"primaryKey;autoIncrement:false"`
	Bucket    int64 `gorm:"primaryKey;autoIncrement:false"`
}

func (v30ServiceServed) TableName() string { return "service_served" }

// migrateV30ServiceServed adds the buckets in which services served, kept past their
// rollups.
func migrateV30ServiceServed(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v30ServiceServed{})
}
