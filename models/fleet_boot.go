package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// BootFailure is one of a pool's machines that failed to boot, as RecordBootFailure records
// it.
type BootFailure struct {
	PoolID int64
	// Key names the machine's intent, which becomes deleting.
	Key string
	// Reason is the failure's scaler.Reason code (boot-timeout, machine-failed); Detail its
	// numbers as phrases (phrase.List.Encode).
	Reason string
	Detail string
	// Limit is how many failures in a row make the pool stop creating machines.
	Limit int
}

// RecordBootFailure marks the intent of a machine that failed to boot deleting and counts
// the failure against its pool, in one transaction: the pool's run of failures grows by one,
// and once it reaches f.Limit the pool fails (PoolScaleState.FailingSince). It returns the
// pool's state after, and whether this failure is the one that made the pool fail. When the
// intent is no longer booting (pending or creating) nothing changes and it returns
// ErrConflict.
func (s *Store) RecordBootFailure(ctx context.Context, f BootFailure, now time.Time) (PoolScaleState, bool, error) {
	now = UTC(now)
	var (
		st      PoolScaleState
		stopped bool
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&Machine{}).
			Where("idempotency_key = ? AND pool_id = ? AND state IN ?", f.Key, f.PoolID, []string{MachinePending, MachineCreating}).
			Updates(map[string]any{"state": MachineDeleting, "reason": truncate(f.Detail, 500), "delete_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("machine %s is not booting: %w", f.Key, ErrConflict)
		}
		// The pool's row may not exist before its first tick is recorded.
		err := tx.Clauses(clause.OnConflict{DoNothing: true}).
			Create(&PoolScaleState{PoolID: f.PoolID, Skips: "[]", UpdatedAt: now}).Error
		if err != nil {
			return err
		}
		if err := forUpdate(tx).Where("pool_id = ?", f.PoolID).Take(&st).Error; err != nil {
			return err
		}
		st.BootFailures++
		st.BootFailedAt, st.BootFailureReason, st.BootFailureDetail = &now, truncate(f.Reason, 50), truncate(f.Detail, 2000)
		if st.FailingSince == nil && st.BootFailures >= f.Limit {
			st.FailingSince, stopped = &now, true
		}
		// UpdateColumns: UpdatedAt is the last tick's time, which a failure does not move.
		return tx.Model(&PoolScaleState{}).Where("pool_id = ?", f.PoolID).UpdateColumns(map[string]any{
			"boot_failures": st.BootFailures, "boot_failed_at": now, "boot_failure_reason": st.BootFailureReason,
			"boot_failure_detail": st.BootFailureDetail, "failing_since": st.FailingSince}).Error
	})
	if err != nil {
		if errors.Is(err, ErrConflict) {
			return PoolScaleState{}, false, fmt.Errorf("models: boot failure of pool %d: %w", f.PoolID, err)
		}
		return PoolScaleState{}, false, fmt.Errorf("models: boot failure of pool %d, machine %s: %w", f.PoolID, f.Key, err)
	}
	return st, stopped, nil
}

// ResumePool ends the named pool's run of boot failures, as an admin does once the cause is
// fixed: the count goes back to 0, a failing pool may create machines again at the next
// tick, and the pool's boot alerts are resolved. It returns the pool's scaling state before
// (zero when it has none) and ErrNotFound for an unknown pool.
func (s *Store) ResumePool(ctx context.Context, name string, now time.Time) (PoolScaleState, error) {
	var before PoolScaleState
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var p Pool
		if err := tx.Scopes(textIs("name", name)).Take(&p).Error; err != nil {
			return notFound("pool "+name, err)
		}
		err := forUpdate(tx).Where("pool_id = ?", p.ID).Take(&before).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return endBootRun(tx, p.ID, p.Name, UTC(now))
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return PoolScaleState{}, err
		}
		return PoolScaleState{}, fmt.Errorf("models: resume pool %q: %w", name, err)
	}
	return before, nil
}

// endBootRun sets the pool's run of boot failures back to none and, when it had one,
// resolves the pool's boot alerts, inside the transaction tx.
func endBootRun(tx *gorm.DB, poolID int64, pool string, now time.Time) error {
	res := tx.Model(&PoolScaleState{}).Where("pool_id = ? AND (boot_failures > 0 OR failing_since IS NOT NULL)", poolID).
		UpdateColumns(map[string]any{"boot_failures": 0, "boot_failed_at": nil, "boot_failure_reason": "", "boot_failure_detail": "",
			"failing_since": nil})
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	for _, kind := range []string{AlertBootTimeout, AlertPoolFailing} {
		if err := resolveAlert(tx, kind, pool, now); err != nil {
			return err
		}
	}
	return nil
}
