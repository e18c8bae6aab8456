package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm/clause"
)

// CloudOrder is a cloud provider's create order that has not yet yielded its machine. The
// provider saves it as soon as the cloud answers the order, before it polls it, so that a
// restarted server polls the same order again and never orders a second machine for the
// slot; it is closed (deleted) once the machine is listed or the order failed.
type CloudOrder struct {
	ID       int64
	Provider string
	// MachineKey is the idempotency key of the slot, MachineID the provider's id of the
	// machine to be, and OrderID the cloud's order id.
	MachineKey string
	MachineID  string
	Pool       string
	OrderID    string
	Flavor     string
	// Tags is the JSON of the tags the machine was asked with.
	Tags      string
	CreatedAt time.Time
}

// TagMap decodes Tags.
func (o CloudOrder) TagMap() map[string]string {
	out := map[string]string{}
	json.Unmarshal([]byte(o.Tags), &out)
	return out
}

// SaveCloudOrder stores an open order; saving one of the same key again replaces it.
func (s *Store) SaveCloudOrder(ctx context.Context, o CloudOrder, tags map[string]string) error {
	b, err := json.Marshal(tags)
	if err != nil {
		return fmt.Errorf("models: cloud order %s: %w", o.MachineKey, err)
	}
	o.ID, o.Tags, o.CreatedAt = 0, string(b), UTC(o.CreatedAt)
	o.Provider, o.MachineKey, o.MachineID = truncate(o.Provider, 30), truncate(o.MachineKey, 64), truncate(o.MachineID, 255)
	o.Pool, o.OrderID, o.Flavor = truncate(o.Pool, 100), truncate(o.OrderID, 128), truncate(o.Flavor, 128)
	err = s.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "machine_key"}},
		DoUpdates: clause.AssignmentColumns([]string{"provider", "machine_id", "pool", "order_id", "flavor", "tags", "created_at"})}).
		Create(&o).Error
	if err != nil {
		return fmt.Errorf("models: save cloud order %s: %w", o.MachineKey, err)
	}
	return nil
}

// CloudOrders returns the provider's open orders, oldest first.
func (s *Store) CloudOrders(ctx context.Context, provider string) ([]CloudOrder, error) {
	var out []CloudOrder
	if err := s.db.WithContext(ctx).Where("provider = ?", provider).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: cloud orders of %s: %w", provider, err)
	}
	return out, nil
}

// CloseCloudOrder forgets the provider's open order of the machine id, if any.
func (s *Store) CloseCloudOrder(ctx context.Context, provider, machineID string) error {
	err := s.db.WithContext(ctx).Where("provider = ? AND machine_id = ?", provider, machineID).Delete(&CloudOrder{}).Error
	if err != nil {
		return fmt.Errorf("models: close cloud order of %s: %w", machineID, err)
	}
	return nil
}
