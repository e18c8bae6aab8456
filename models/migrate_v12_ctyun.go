package models

import (
	"encoding/json"
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 12 (the China Telecom Cloud provider).
type (
	// v12CloudOrder is a cloud provider's create order not yet done, saved before it is
	// polled so that a restarted server polls it again instead of ordering again.
	v12CloudOrder struct {
		ID         int64
		Provider   string    `gorm:"size:30;not null;index"`
		MachineKey string    `gorm:"size:64;not null;uniqueIndex"`
		MachineID  string    `gorm:"size:255;not null"`
		Pool       string    `gorm:"size:100;not null"`
		OrderID    string    `gorm:"size:128;not null"`
		Flavor     string    `gorm:"size:128;not null"`
		Tags       string    `gorm:"not null"`
		CreatedAt  time.Time `gorm:"not null"`
	}
	// v12Pool carries the region and zone of the pool's configuration, so pages and
	// placement read them without decoding configurations.
	v12Pool struct {
		Region string `gorm:"size:64;not null;default:''"`
		Zone   string `gorm:"size:64;not null;default:''"`
	}
	// v12PoolScaleState holds the list price of one of the pool's machines per hour, and
	// where it came from (the provider or the pool's settings).
	v12PoolScaleState struct {
		HourlyPriceFen int64  `gorm:"not null;default:0"`
		PriceSource    string `gorm:"size:20;not null;default:''"`
	}
	// v12ScalingEvent holds what a scale-up costs per hour at list price.
	v12ScalingEvent struct {
		HourlyCostFen int64 `gorm:"not null;default:0"`
	}
	v12PoolPolicy struct {
		PoolID int64
		Config string
	}
)

func (v12CloudOrder) TableName() string     { return "cloud_orders" }
func (v12Pool) TableName() string           { return "pools" }
func (v12PoolScaleState) TableName() string { return "pool_scale_states" }
func (v12ScalingEvent) TableName() string   { return "scaling_events" }
func (v12PoolPolicy) TableName() string     { return "pool_policies" }

// migrateV12Ctyun adds the cloud orders not yet done, each pool's region and zone (filled
// from its configuration), the list price per machine-hour beside each pool's scaling state,
// and the hourly cost of each scale-up.
func migrateV12Ctyun(tx *gorm.DB) error {
	m := tx.Migrator()
	if err := m.CreateTable(&v12CloudOrder{}); err != nil {
		return err
	}
	for _, f := range []string{"Region", "Zone"} {
		if err := m.AddColumn(&v12Pool{}, f); err != nil {
			return err
		}
	}
	for _, f := range []string{"HourlyPriceFen", "PriceSource"} {
		if err := m.AddColumn(&v12PoolScaleState{}, f); err != nil {
			return err
		}
	}
	if err := m.AddColumn(&v12ScalingEvent{}, "HourlyCostFen"); err != nil {
		return err
	}
	var policies []v12PoolPolicy
	if err := tx.Find(&policies).Error; err != nil {
		return err
	}
	for _, p := range policies {
		var c struct {
			Region string `json:"region"`
			Zone   string `json:"zone"`
		}
		if json.Unmarshal([]byte(p.Config), &c) != nil || c.Region == "" && c.Zone == "" {
			continue
		}
		err := tx.Table("pools").Where("id = ?", p.PoolID).Updates(map[string]any{"region": c.Region, "zone": c.Zone}).Error
		if err != nil {
			return err
		}
	}
	return nil
}
