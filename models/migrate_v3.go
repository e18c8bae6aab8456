package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 3.
type (
	v3BillingSetting struct {
		ID        int64  `gorm:"primaryKey;autoIncrement:false"`
		TimeZone  string `gorm:"size:64;not null"`
		UpdatedAt time.Time
	}
	v3Price struct {
		ID              int64
		ProjectID       int64  `gorm:"not null;uniqueIndex:idx_prices_key,priority:1"`
		Spec            string `gorm:"size:100;not null;uniqueIndex:idx_prices_key,priority:2"`
		FromMonth       string `gorm:"size:7;not null;uniqueIndex:idx_prices_key,priority:3"`
		RateFen         int64  `gorm:"not null"`
		OverflowRateFen int64  `gorm:"not null"`
		UpdatedAt       time.Time
	}
	v3BillingPlan struct {
		ID            int64
		ProjectID     int64     `gorm:"not null;uniqueIndex:idx_billing_plans_key,priority:1"`
		Project       v1Project `gorm:"constraint:OnDelete:CASCADE"`
		FromMonth     string    `gorm:"size:7;not null;uniqueIndex:idx_billing_plans_key,priority:2"`
		Mode          string    `gorm:"size:20;not null"`
		PackageSpec   string    `gorm:"size:100;not null"`
		PackageCards  int       `gorm:"not null"`
		PackageFeeFen int64     `gorm:"not null"`
		UnitPriceFen  int64     `gorm:"not null"`
		SizeClasses   string    `gorm:"size:4000;not null"`
		UpdatedAt     time.Time
	}
	v3IssuedBill struct {
		ID          int64
		ProjectID   int64     `gorm:"not null;uniqueIndex:idx_issued_bills_key,priority:1"`
		Project     v1Project `gorm:"constraint:OnDelete:RESTRICT"`
		Month       string    `gorm:"size:7;not null;uniqueIndex:idx_issued_bills_key,priority:2;index"`
		TimeZone    string    `gorm:"size:64;not null"`
		PeriodStart time.Time `gorm:"not null"`
		PeriodEnd   time.Time `gorm:"not null"`
		NominalS    int64     `gorm:"column:nominal_s;not null"`
		EffectiveS  int64     `gorm:"column:effective_s;not null"`
		TotalFen    int64     `gorm:"not null"`
		Body        string    `gorm:"type:text;not null"`
		SHA256      string    `gorm:"column:sha256;size:64;not null"`
		IssuedAt    time.Time `gorm:"not null"`
		IssuedBy    string    `gorm:"size:100;not null"`
	}
	v3Adjustment struct {
		ID            int64
		ProjectID     int64     `gorm:"not null;index:idx_adjustments_key,priority:1"`
		Project       v1Project `gorm:"constraint:OnDelete:RESTRICT"`
		Month         string    `gorm:"size:7;not null;index:idx_adjustments_key,priority:2"`
		AmountFen     int64     `gorm:"not null"`
		Reason        string    `gorm:"size:500;not null"`
		CorrectsMonth string    `gorm:"size:7;not null"`
		CreatedBy     string    `gorm:"size:100;not null"`
		CreatedAt     time.Time `gorm:"not null"`
	}
)

func (v3BillingSetting) TableName() string { return "billing_settings" }
func (v3Price) TableName() string          { return "prices" }
func (v3BillingPlan) TableName() string    { return "billing_plans" }
func (v3IssuedBill) TableName() string     { return "issued_bills" }
func (v3Adjustment) TableName() string     { return "adjustments" }

// migrateV3 adds billing: one settings row, the price list (project 0 is the default for
// every project), per-project billing plans, issued (frozen) bills and adjustments.
func migrateV3(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v3BillingSetting{}, &v3Price{}, &v3BillingPlan{}, &v3IssuedBill{}, &v3Adjustment{})
}
