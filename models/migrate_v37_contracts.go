package models

import (
	"encoding/json"

	"gorm.io/gorm"
)

// v37Quota is migration 37's frozen addition to a quota: how far a lead may raise its limit,
// guarantee and budget.
type v37Quota struct {
	ContractMaxGPUs         int   `gorm:"column:contract_max_gpus;not null;default:0"`
	ContractGuaranteedGPUs  int   `gorm:"column:contract_guaranteed_gpus;not null;default:0"`
	ContractBudgetCardHours int64 `gorm:"not null;default:0"`
}

func (v37Quota) TableName() string { return "quotas" }

// v37PoolPolicy is the stored configuration of a pool, as migration 37 reads and writes it.
type v37PoolPolicy struct {
	PoolID int64 `gorm:"primaryKey;autoIncrement:false"`
	Config string
}

func (v37PoolPolicy) TableName() string { return "pool_policies" }

// migrateV37Contracts gives each quota its contract: what it holds now, so a lead may approve
// what they could undo, and above it an admin. Each pool's configuration saved before
// unused_booking_pct existed states the 0 % it has billed since (no key read as 0): from
// now on a configuration without the setting bills the default, and a pool saved before
// must not change its price unseen.
func migrateV37Contracts(tx *gorm.DB) error {
	for _, f := range []string{"ContractMaxGPUs", "ContractGuaranteedGPUs", "ContractBudgetCardHours"} {
		if err := tx.Migrator().AddColumn(&v37Quota{}, f); err != nil {
			return err
		}
	}
	err := tx.Exec(`UPDATE quotas SET contract_max_gpus = max_gpus, contract_guaranteed_gpus = guaranteed_gpus,
		contract_budget_card_hours = budget_card_hours`).Error
	if err != nil {
		return err
	}
	var policies []v37PoolPolicy
	if err := tx.Find(&policies).Error; err != nil {
		return err
	}
	for _, p := range policies {
		var cfg map[string]json.RawMessage
		if err := json.Unmarshal([]byte(p.Config), &cfg); err != nil {
			return err
		}
		if _, ok := cfg["unused_booking_pct"]; ok {
			continue
		}
		cfg["unused_booking_pct"] = json.RawMessage("0")
		b, err := json.Marshal(cfg)
		if err != nil {
			return err
		}
		if err := tx.Model(&v37PoolPolicy{}).Where("pool_id = ?", p.PoolID).Update("config", string(b)).Error; err != nil {
			return err
		}
	}
	return nil
}
