package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// LastSeen is the latest time any node was heard from, zero when no node ever was: where a
// stored fleet's clock stopped (the demo continues from there on a database it used before).
func (s *Store) LastSeen(ctx context.Context) (time.Time, error) {
	var n Node
	err := s.db.WithContext(ctx).Select("last_seen_at").Order("last_seen_at DESC").Limit(1).Take(&n).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("models: last seen: %w", err)
	}
	return n.LastSeenAt.UTC(), nil
}
