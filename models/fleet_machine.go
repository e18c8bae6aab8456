package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Machine states: the life of an intent to have a machine.
const (
	// MachinePending: the key is stored; the provider call may or may not have happened.
	MachinePending = "pending"
	// MachineCreating: the provider answered with its id; the agent has not registered yet.
	MachineCreating = "creating"
	// MachineReady: its agent registered (a node carries its id or key).
	MachineReady = "ready"
	// MachineDeleting: its deletion is decided; the provider may still hold it.
	MachineDeleting = "deleting"
	// MachineDeleted: the provider no longer holds it.
	MachineDeleted = "deleted"
)

// Machine is the scaling loop's intent for one machine slot. It is stored, with its
// idempotency key, before the provider is asked, so a crash between the two can neither lose
// a machine nor make a second one.
type Machine struct {
	ID     int64
	PoolID int64
	// IdempotencyKey names the slot; every Create for the slot carries it.
	IdempotencyKey string
	// ProviderID is the provider's id (cloud order or instance id); empty until known.
	ProviderID string
	State      string
	// NodeID is the node its agent registered as; nil before.
	NodeID *int64
	// Adopted is true for a machine found at the provider with the pool's tags but no intent.
	Adopted bool
	// Reason says why it is being deleted.
	Reason    string
	CreatedAt time.Time
	ReadyAt   *time.Time
	DeleteAt  *time.Time
	DeletedAt *time.Time
}

// Machines returns the intents of a pool not yet deleted, oldest first.
func (s *Store) Machines(ctx context.Context, poolID int64) ([]Machine, error) {
	var out []Machine
	err := s.db.WithContext(ctx).Where("pool_id = ? AND state <> ?", poolID, MachineDeleted).Order("id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: machines of pool %d: %w", poolID, err)
	}
	return out, nil
}

// MachineByKey returns the intent with the key, deleted or not.
func (s *Store) MachineByKey(ctx context.Context, key string) (Machine, error) {
	var m Machine
	if err := s.db.WithContext(ctx).Scopes(textIs("idempotency_key", key)).Take(&m).Error; err != nil {
		return m, notFound("machine "+key, err)
	}
	return m, nil
}

// DeletedMachineIDs returns which of ids (idempotency keys or provider ids) belong to
// intents already deleted and to no live one: a machine the provider still holds under such a
// key is a leftover to delete, and a node carrying such an id has lost its machine.
func (s *Store) DeletedMachineIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Machine
	err := s.db.WithContext(ctx).Select("idempotency_key, provider_id, state").
		Where("idempotency_key IN ? OR provider_id IN ?", ids, ids).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: deleted machines: %w", err)
	}
	live := make(map[string]bool)
	for _, m := range rows {
		for _, id := range []string{m.IdempotencyKey, m.ProviderID} {
			if id == "" {
				continue
			}
			if m.State == MachineDeleted {
				out[id] = true
			} else {
				live[id] = true
			}
		}
	}
	for id := range live {
		delete(out, id)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for id := range out {
		if !want[id] {
			delete(out, id)
		}
	}
	return out, nil
}

// RecordScaleUp stores one pending intent per key and the scaling event, and marks the
// pool's last scale-up, in one transaction: the keys exist before any provider call.
func (s *Store) RecordScaleUp(ctx context.Context, poolID int64, keys []string, ev ScalingEvent, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, k := range keys {
			m := Machine{PoolID: poolID, IdempotencyKey: k, State: MachinePending, CreatedAt: now}
			if err := tx.Create(&m).Error; err != nil {
				return fmt.Errorf("intent %s: %w", k, err)
			}
		}
		if err := addScalingEvent(tx, poolID, ev, now); err != nil {
			return err
		}
		return touchPoolScale(tx, PoolScaleState{PoolID: poolID, LastScaleUpAt: &now, UpdatedAt: now}, "last_scale_up_at")
	})
	if err != nil {
		return fmt.Errorf("models: record scale-up of pool %d: %w", poolID, err)
	}
	return nil
}

// SetMachineProviderID records the provider's id for a pending or creating intent, which
// becomes creating. It returns ErrConflict when the intent is ready, deleting or deleted.
func (s *Store) SetMachineProviderID(ctx context.Context, key, providerID string) error {
	res := s.db.WithContext(ctx).Model(&Machine{}).
		Where("idempotency_key = ? AND state IN ?", key, []string{MachinePending, MachineCreating}).
		Updates(map[string]any{"provider_id": truncate(providerID, 255), "state": MachineCreating})
	if res.Error != nil {
		return fmt.Errorf("models: machine %s provider id: %w", key, res.Error)
	}
	if res.RowsAffected == 0 {
		return s.machineConflict(ctx, key)
	}
	return nil
}

// MarkMachineReady records that the intent's agent registered as nodeID. A machine that
// boots ends its pool's run of boot failures (and resolves the pool's boot alerts), in the
// same transaction.
func (s *Store) MarkMachineReady(ctx context.Context, key string, nodeID int64, now time.Time) error {
	now = UTC(now)
	ready := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&Machine{}).
			Where("idempotency_key = ? AND state IN ?", key, []string{MachinePending, MachineCreating}).
			Updates(map[string]any{"state": MachineReady, "node_id": nodeID, "ready_at": now})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		ready = true
		var p Pool
		err := tx.Model(&Pool{}).Select("pools.id, pools.name").Joins("JOIN machines ON machines.pool_id = pools.id").
			Scopes(textIs("machines.idempotency_key", key)).Take(&p).Error
		if err != nil {
			return err
		}
		return endBootRun(tx, p.ID, p.Name, now)
	})
	if err != nil {
		return fmt.Errorf("models: machine %s ready: %w", key, err)
	}
	if !ready {
		return s.machineConflict(ctx, key)
	}
	return nil
}

// MarkMachineDeleting decides the intent's machine is to be deleted, with why. An intent
// already deleting or deleted is left as it is.
func (s *Store) MarkMachineDeleting(ctx context.Context, key, reason string, now time.Time) error {
	err := s.db.WithContext(ctx).Model(&Machine{}).
		Where("idempotency_key = ? AND state IN ?", key, []string{MachinePending, MachineCreating, MachineReady}).
		Updates(map[string]any{"state": MachineDeleting, "reason": truncate(reason, 500), "delete_at": UTC(now)}).Error
	if err != nil {
		return fmt.Errorf("models: machine %s deleting: %w", key, err)
	}
	return nil
}

// MarkMachineDeleted records that the provider no longer holds the intent's machine.
func (s *Store) MarkMachineDeleted(ctx context.Context, key string, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Model(&Machine{}).Where("idempotency_key = ? AND state <> ?", key, MachineDeleted).
		Updates(map[string]any{"state": MachineDeleted, "deleted_at": now}).Error
	if err != nil {
		return fmt.Errorf("models: machine %s deleted: %w", key, err)
	}
	return nil
}

// AdoptMachine stores an intent for a machine found at the provider with the pool's tags but
// none of ours. It returns ErrConflict when the key is taken.
func (s *Store) AdoptMachine(ctx context.Context, poolID int64, key, providerID string, now time.Time) (Machine, error) {
	m := Machine{PoolID: poolID, IdempotencyKey: key, ProviderID: truncate(providerID, 255), State: MachineCreating,
		Adopted: true, CreatedAt: UTC(now)}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Machine{}).Scopes(textIs("idempotency_key", key)).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("models: adopt machine %s: key taken: %w", key, ErrConflict)
		}
		return tx.Create(&m).Error
	})
	if err != nil && !errors.Is(err, ErrConflict) {
		return Machine{}, fmt.Errorf("models: adopt machine %s: %w", key, err)
	}
	return m, err
}

// machineConflict explains why an intent did not change: ErrNotFound or ErrConflict.
func (s *Store) machineConflict(ctx context.Context, key string) error {
	m, err := s.MachineByKey(ctx, key)
	if err != nil {
		return err
	}
	return fmt.Errorf("models: machine %s is %s: %w", key, m.State, ErrConflict)
}
