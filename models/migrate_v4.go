package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 4.
type (
	v4PoolPolicy struct {
		PoolID    int64  `gorm:"primaryKey;autoIncrement:false"`
		Pool      v1Pool `gorm:"constraint:OnDelete:CASCADE"`
		Version   int    `gorm:"not null"`
		Enabled   bool   `gorm:"not null"`
		Config    string `gorm:"not null"`
		UpdatedAt time.Time
		UpdatedBy string `gorm:"size:100;not null"`
	}
	v4PoolPolicyVersion struct {
		ID      int64
		PoolID  int64     `gorm:"not null;uniqueIndex:idx_pool_policy_versions_pool_version,priority:1"`
		Pool    v1Pool    `gorm:"constraint:OnDelete:CASCADE"`
		Version int       `gorm:"not null;uniqueIndex:idx_pool_policy_versions_pool_version,priority:2"`
		At      time.Time `gorm:"not null"`
		By      string    `gorm:"size:100;not null"`
		Note    string    `gorm:"size:500;not null"`
		Before  string    `gorm:"not null"`
		After   string    `gorm:"not null"`
	}
	v4Machine struct {
		ID             int64
		PoolID         int64  `gorm:"not null;index"`
		Pool           v1Pool `gorm:"constraint:OnDelete:RESTRICT"`
		IdempotencyKey string `gorm:"size:64;not null;uniqueIndex"`
		ProviderID     string `gorm:"size:255;not null;index"`
		State          string `gorm:"size:20;not null;index"`
		NodeID         *int64
		Adopted        bool      `gorm:"not null"`
		Reason         string    `gorm:"size:500;not null"`
		CreatedAt      time.Time `gorm:"not null"`
		ReadyAt        *time.Time
		DeleteAt       *time.Time
		DeletedAt      *time.Time
	}
	v4ScalingEvent struct {
		ID         int64
		At         time.Time `gorm:"not null;index:idx_scaling_events_pool_at,priority:2"`
		PoolID     int64     `gorm:"not null;index:idx_scaling_events_pool_at,priority:1"`
		Pool       v1Pool    `gorm:"constraint:OnDelete:CASCADE"`
		Kind       string    `gorm:"size:30;not null"`
		FromSize   int       `gorm:"not null"`
		ToSize     int       `gorm:"not null"`
		Reason     string    `gorm:"size:50;not null"`
		Detail     string    `gorm:"size:2000;not null"`
		NodeID     *int64
		MachineKey string `gorm:"size:64;not null"`
	}
	v4PoolScaleState struct {
		PoolID          int64  `gorm:"primaryKey;autoIncrement:false"`
		Pool            v1Pool `gorm:"constraint:OnDelete:CASCADE"`
		Size            int    `gorm:"not null"`
		Desired         int    `gorm:"not null"`
		LastScaleUpAt   *time.Time
		LastScaleDownAt *time.Time
		Skips           string `gorm:"not null"`
		UpdatedAt       time.Time
	}
	v4PoolSizeSample struct {
		PoolID     int64     `gorm:"primaryKey;autoIncrement:false"`
		Pool       v1Pool    `gorm:"constraint:OnDelete:CASCADE"`
		At         time.Time `gorm:"primaryKey;autoIncrement:false"`
		Size       int       `gorm:"not null"`
		Desired    int       `gorm:"not null"`
		DemandGPUs int       `gorm:"column:demand_gpus;not null"`
	}
	v4NodeScaleState struct {
		NodeID        int64  `gorm:"primaryKey;autoIncrement:false"`
		Node          v1Node `gorm:"constraint:OnDelete:CASCADE"`
		UnneededSince *time.Time
		DrainSince    *time.Time
		DrainReason   string `gorm:"size:500;not null"`
	}
	v4Alert struct {
		ID         int64
		Kind       string    `gorm:"size:50;not null"`
		Subject    string    `gorm:"size:200;not null"`
		Message    string    `gorm:"size:2000;not null"`
		At         time.Time `gorm:"not null;index"`
		LastAt     time.Time `gorm:"not null"`
		Count      int       `gorm:"not null"`
		ResolvedAt *time.Time
		SentAt     *time.Time
	}
	v4TaskReclaim struct {
		TaskID      int64  `gorm:"primaryKey;autoIncrement:false"`
		Task        v1Task `gorm:"constraint:OnDelete:CASCADE"`
		NoticeAt    *time.Time
		KeptUntil   *time.Time
		KeepDay     string `gorm:"size:10;not null"`
		KeepsOnDay  int    `gorm:"not null"`
		ReclaimedAt *time.Time
	}
)

func (v4PoolPolicy) TableName() string        { return "pool_policies" }
func (v4PoolPolicyVersion) TableName() string { return "pool_policy_versions" }
func (v4Machine) TableName() string           { return "machines" }
func (v4ScalingEvent) TableName() string      { return "scaling_events" }
func (v4PoolScaleState) TableName() string    { return "pool_scale_states" }
func (v4PoolSizeSample) TableName() string    { return "pool_size_samples" }
func (v4NodeScaleState) TableName() string    { return "node_scale_states" }
func (v4Alert) TableName() string             { return "alerts" }
func (v4TaskReclaim) TableName() string       { return "task_reclaims" }

// migrateV4 adds the scaling loop's tables: pool policies with their versions, machine
// intents, scaling events, per-pool scaling state and size history, per-node scaling state,
// alerts and idle reclaims.
func migrateV4(tx *gorm.DB) error {
	err := tx.Migrator().CreateTable(&v4PoolPolicy{}, &v4PoolPolicyVersion{}, &v4Machine{}, &v4ScalingEvent{},
		&v4PoolScaleState{}, &v4PoolSizeSample{}, &v4NodeScaleState{}, &v4Alert{}, &v4TaskReclaim{})
	if err != nil {
		return err
	}
	// One open alert per kind and subject: raising it again updates that one.
	return tx.Exec("CREATE UNIQUE INDEX idx_alerts_one_open ON alerts (kind, subject) WHERE resolved_at IS NULL").Error
}
