package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ScalingEvent is one thing the scaling loop did to a pool, with its typed reason and the
// numbers behind it, e.g. 4→5, "demand-waiting", "24 GPUs of ready demand waited 3m > 2m".
type ScalingEvent struct {
	ID     int64
	At     time.Time
	PoolID int64
	// Kind is the action (scale-up, drain, undrain, remove, delete-machine, adopt, …).
	Kind     string
	FromSize int
	ToSize   int
	// Reason is a stable code (scaler.Reason); Detail the numbers as phrases
	// (phrase.List.Encode; rows written before phrases hold an English sentence).
	Reason     string
	Detail     string
	NodeID     *int64
	MachineKey string
	// HourlyCostFen is what the machines a scale-up asked for cost per hour at list price;
	// 0 when no price is known or for other kinds.
	HourlyCostFen int64
}

// PoolSkip is one reason the loop did not act on a pool at its last tick.
type PoolSkip struct {
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// PoolScaleState is the scaling loop's memory of a pool: its size and desired size at the
// last tick, when it last grew and shrank (for cooldowns), and why it did not act.
type PoolScaleState struct {
	PoolID          int64 `gorm:"primaryKey;autoIncrement:false"`
	Size            int
	Desired         int
	LastScaleUpAt   *time.Time
	LastScaleDownAt *time.Time
	// AtMaxSince is since when the pool has been at its maximum with demand waiting; nil
	// while it is not.
	AtMaxSince *time.Time
	// Skips is the JSON list of PoolSkip of the last tick.
	Skips string
	// HourlyPriceFen is the list price of one of the pool's machines per hour, as the
	// scaling loop last learnt it, and PriceSource where from (PriceFromProvider or
	// PriceFromSettings); 0 and "" when none is known.
	HourlyPriceFen int64
	PriceSource    string
	// BootFailures is how many of the pool's machines in a row failed to boot (timed out or
	// failed); a machine that boots, or an admin's resume, sets it back to 0. BootFailedAt,
	// BootFailureReason (a scaler.Reason code) and BootFailureDetail (its numbers as phrases) are
	// the last failure's. FailingSince is when the run reached the pool's limit: from then on
	// the scaling loop creates no machine for the pool until an admin resumes it.
	BootFailures      int
	BootFailedAt      *time.Time
	BootFailureReason string
	BootFailureDetail string
	FailingSince      *time.Time
	UpdatedAt         time.Time
}

// Where a pool's list price came from: the provider's price API or the pool's settings.
const (
	PriceFromProvider = "provider"
	PriceFromSettings = "settings"
)

// SkipList decodes Skips.
func (p PoolScaleState) SkipList() []PoolSkip {
	var out []PoolSkip
	json.Unmarshal([]byte(p.Skips), &out)
	return out
}

// addScalingEvent appends ev for poolID at now inside tx.
func addScalingEvent(tx *gorm.DB, poolID int64, ev ScalingEvent, now time.Time) error {
	ev.ID, ev.PoolID, ev.At = 0, poolID, now
	ev.Kind, ev.Reason = truncate(ev.Kind, 30), truncate(ev.Reason, 50)
	ev.Detail, ev.MachineKey = truncate(ev.Detail, 2000), truncate(ev.MachineKey, 64)
	if err := tx.Create(&ev).Error; err != nil {
		return fmt.Errorf("scaling event: %w", err)
	}
	return nil
}

// touchPoolScale writes the columns cols of row, creating the pool's row if needed.
func touchPoolScale(tx *gorm.DB, row PoolScaleState, cols ...string) error {
	if row.Skips == "" {
		row.Skips = "[]"
	}
	return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "pool_id"}},
		DoUpdates: clause.AssignmentColumns(cols)}).Create(&row).Error
}

// RecordScalingEvent appends one event at now.
func (s *Store) RecordScalingEvent(ctx context.Context, poolID int64, ev ScalingEvent, now time.Time) error {
	if err := addScalingEvent(s.db.WithContext(ctx), poolID, ev, UTC(now)); err != nil {
		return fmt.Errorf("models: pool %d: %w", poolID, err)
	}
	return nil
}

// ScalingEvents returns a pool's latest events, newest first, at most limit (all when
// limit ≤ 0).
func (s *Store) ScalingEvents(ctx context.Context, poolID int64, limit int) ([]ScalingEvent, error) {
	q := s.db.WithContext(ctx).Where("pool_id = ?", poolID).Order("at DESC, id DESC")
	if limit > 0 {
		q = q.Limit(limit)
	}
	var out []ScalingEvent
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: scaling events of pool %d: %w", poolID, err)
	}
	return out, nil
}

// PoolScaleStates returns the scaling state of every pool that has one, by pool id.
func (s *Store) PoolScaleStates(ctx context.Context) (map[int64]PoolScaleState, error) {
	var rows []PoolScaleState
	if err := s.db.WithContext(ctx).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: pool scale states: %w", err)
	}
	out := make(map[int64]PoolScaleState, len(rows))
	for _, r := range rows {
		out[r.PoolID] = r
	}
	return out, nil
}

// SetPoolScaleStatus records a tick's outcome for a pool: its size, desired size and the
// reasons it did not act.
func (s *Store) SetPoolScaleStatus(ctx context.Context, poolID int64, size, desired int, skips []PoolSkip, now time.Time) error {
	if skips == nil {
		skips = []PoolSkip{}
	}
	b, err := json.Marshal(skips)
	if err != nil {
		return fmt.Errorf("models: pool %d skips: %w", poolID, err)
	}
	row := PoolScaleState{PoolID: poolID, Size: size, Desired: desired, Skips: string(b), UpdatedAt: UTC(now)}
	err = touchPoolScale(s.db.WithContext(ctx), row, "size", "desired", "skips", "updated_at")
	if err != nil {
		return fmt.Errorf("models: pool %d scale status: %w", poolID, err)
	}
	return nil
}

// SetPoolAtMaxSince records since when the pool has been at its maximum with demand waiting
// (nil: it is not), so that a restart does not reset the wait.
func (s *Store) SetPoolAtMaxSince(ctx context.Context, poolID int64, since *time.Time, now time.Time) error {
	if since != nil {
		t := UTC(*since)
		since = &t
	}
	row := PoolScaleState{PoolID: poolID, AtMaxSince: since, UpdatedAt: UTC(now)}
	if err := touchPoolScale(s.db.WithContext(ctx), row, "at_max_since"); err != nil {
		return fmt.Errorf("models: pool %d at max since: %w", poolID, err)
	}
	return nil
}

// PoolSizeSample is a pool's size, desired size and admissible demand at a minute: the
// pools page's chart of size against demand.
type PoolSizeSample struct {
	PoolID     int64     `gorm:"primaryKey;autoIncrement:false"`
	At         time.Time `gorm:"primaryKey;autoIncrement:false"`
	Size       int
	Desired    int
	DemandGPUs int `gorm:"column:demand_gpus"`
}

// RecordPoolSize stores the pool's size at now's minute; a later tick of the same minute
// overwrites it.
func (s *Store) RecordPoolSize(ctx context.Context, poolID int64, size, desired, demandGPUs int, now time.Time) error {
	row := PoolSizeSample{PoolID: poolID, At: UTC(now).Truncate(time.Minute), Size: size, Desired: desired, DemandGPUs: demandGPUs}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "pool_id"}, {Name: "at"}},
		DoUpdates: clause.AssignmentColumns([]string{"size", "desired", "demand_gpus"})}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("models: pool %d size: %w", poolID, err)
	}
	return nil
}

// PoolSizes returns the pool's size history in [from, to], oldest first.
func (s *Store) PoolSizes(ctx context.Context, poolID int64, from, to time.Time) ([]PoolSizeSample, error) {
	var out []PoolSizeSample
	err := s.db.WithContext(ctx).Where("pool_id = ? AND at >= ? AND at <= ?", poolID, UTC(from), UTC(to)).
		Order("at").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: pool %d sizes: %w", poolID, err)
	}
	return out, nil
}

// SetPoolPrice records the list price of one of the pool's machines per hour, in fen, and
// where it came from (PriceFromProvider, PriceFromSettings; 0 and "" when none is known).
func (s *Store) SetPoolPrice(ctx context.Context, poolID, fen int64, source string, now time.Time) error {
	row := PoolScaleState{PoolID: poolID, HourlyPriceFen: fen, PriceSource: truncate(source, 20), UpdatedAt: UTC(now)}
	if err := touchPoolScale(s.db.WithContext(ctx), row, "hourly_price_fen", "price_source"); err != nil {
		return fmt.Errorf("models: pool %d price: %w", poolID, err)
	}
	return nil
}

// ScalingEventsIn returns a pool's events at [from, to), oldest first: a pilot review reads
// the scaling loop's actions and reasons over its period.
func (s *Store) ScalingEventsIn(ctx context.Context, poolID int64, from, to time.Time) ([]ScalingEvent, error) {
	var out []ScalingEvent
	err := s.db.WithContext(ctx).Where("pool_id = ? AND at >= ? AND at < ?", poolID, UTC(from), UTC(to)).
		Order("at, id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: scaling events of pool %d: %w", poolID, err)
	}
	return out, nil
}
