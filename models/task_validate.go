package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// errDryRun rolls back ValidateTask's transaction.
var errDryRun = errors.New("dry run")

// ValidateTask checks a submit by the rules CreateTask applies, storing nothing: the same
// checks run in a transaction that is always rolled back. Bad input gives a *FieldError.
func (s *Store) ValidateTask(ctx context.Context, nt NewTask, lim TaskLimits) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Task // thrown away, so its submit time does not matter
		if err := s.taskFromNew(newSubmitReads(tx), nt, lim, time.Time{}, &t); err != nil {
			return err
		}
		return errDryRun
	})
	var fe *FieldError
	switch {
	case errors.Is(err, errDryRun):
		return nil
	case errors.As(err, &fe):
		return err
	}
	return fmt.Errorf("models: validate task: %w", err)
}
