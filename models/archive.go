package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ArchiveUpload is one object to write to the archive (S3-compatible storage), kept until it
// arrived: the outbox. A record's objects are stored here in the same pass that finds the
// record, so an outage of the store or a restart loses none; the request that made the
// record never waits for the store. Body is cleared once the object arrived.
type ArchiveUpload struct {
	ID int64
	// Kind is the layout's folder (ArchiveBills, ArchiveTemplates, …); SourceID and SourceAt
	// the record the object holds (for ArchivePlans and ArchiveBackups the day, yyyymmdd).
	Kind     string
	Key      string
	SourceID int64
	SourceAt time.Time
	// Body is the object's bytes, SHA256 their hex SHA-256; a backup has none: it is made
	// when it is uploaded.
	Body        []byte
	Size        int64
	SHA256      string `gorm:"column:sha256"`
	ContentType string
	// Attempts counts the failed uploads; NextAt is when the next may be made; LastError
	// why the last failed.
	Attempts  int
	NextAt    time.Time
	LastError string
	CreatedAt time.Time
	DoneAt    *time.Time
	// VersionID is the store's version of the object, where the bucket keeps versions.
	VersionID string
}

func (ArchiveUpload) TableName() string { return "archive_uploads" }

// The kinds of archived records: the first folder under the archive's prefix.
const (
	ArchiveBills     = "bills"
	ArchiveLedger    = "ledger"
	ArchiveTemplates = "templates"
	ArchivePools     = "pools"
	ArchiveApprovals = "approvals"
	ArchivePlans     = "plans"
	ArchiveBackups   = "backups"
)

// maxArchiveError bounds the error kept for a failed upload.
const maxArchiveError = 1000

// EnqueueArchive stores uploads not yet in the outbox, in one transaction; an upload whose
// key is already there (a record found twice) is left as it is. It returns how many it added.
func (s *Store) EnqueueArchive(ctx context.Context, ups []ArchiveUpload, now time.Time) (int, error) {
	if len(ups) == 0 {
		return 0, nil
	}
	now = UTC(now)
	for i := range ups {
		ups[i].ID, ups[i].CreatedAt, ups[i].NextAt, ups[i].SourceAt = 0, now, now, UTC(ups[i].SourceAt)
		ups[i].Size = int64(len(ups[i].Body))
	}
	var added int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "key"}}, DoNothing: true}).
			CreateInBatches(ups, 50)
		added = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: enqueue %d archive uploads: %w", len(ups), err)
	}
	return int(added), nil
}

// ArchiveMark is the latest record of kind in the outbox: its source id and time (zero when
// none).
func (s *Store) ArchiveMark(ctx context.Context, kind string) (int64, time.Time, error) {
	var u ArchiveUpload
	err := s.db.WithContext(ctx).Where("kind = ?", kind).Order("source_id DESC").Limit(1).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("models: archive mark of %s: %w", kind, err)
	}
	var latest ArchiveUpload
	if err := s.db.WithContext(ctx).Select("source_at").Where("kind = ?", kind).Order("source_at DESC").Limit(1).Take(&latest).Error; err != nil {
		return 0, time.Time{}, fmt.Errorf("models: archive mark of %s: %w", kind, err)
	}
	return u.SourceID, latest.SourceAt.UTC(), nil
}

// ArchiveDue returns up to limit uploads that have not arrived and whose next attempt is due
// at now, the oldest first.
func (s *Store) ArchiveDue(ctx context.Context, now time.Time, limit int) ([]ArchiveUpload, error) {
	var out []ArchiveUpload
	err := s.db.WithContext(ctx).Where("done_at IS NULL AND next_at <= ?", UTC(now)).Order("next_at, id").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: archive uploads due: %w", err)
	}
	return out, nil
}

// ArchiveArrived marks upload id arrived at now, in the store's version versionID, and lets
// go of its body.
func (s *Store) ArchiveArrived(ctx context.Context, id int64, versionID string, now time.Time) error {
	err := s.db.WithContext(ctx).Model(&ArchiveUpload{}).Where("id = ? AND done_at IS NULL", id).
		Updates(map[string]any{"done_at": UTC(now), "version_id": versionID, "body": nil, "last_error": ""}).Error
	if err != nil {
		return fmt.Errorf("models: archive upload %d arrived: %w", id, err)
	}
	return nil
}

// ArchiveFailed counts a failed attempt of upload id, keeps why, and holds the next until
// next. One statement, so two passes never lose a count.
func (s *Store) ArchiveFailed(ctx context.Context, id int64, why string, next time.Time) error {
	if len(why) > maxArchiveError {
		why = why[:maxArchiveError]
	}
	err := s.db.WithContext(ctx).Model(&ArchiveUpload{}).Where("id = ? AND done_at IS NULL", id).
		Updates(map[string]any{"attempts": gorm.Expr("attempts + 1"), "last_error": why, "next_at": UTC(next)}).Error
	if err != nil {
		return fmt.Errorf("models: archive upload %d failed: %w", id, err)
	}
	return nil
}

// ArchiveOutbox is the admin page's view of the outbox.
type ArchiveOutbox struct {
	// Waiting are the uploads not yet arrived (up to a limit), those that failed first, then
	// the oldest.
	Waiting []ArchiveUpload
	// Pending and Failing count the uploads not arrived: never tried or not yet failed, and
	// failed at least once. Arrived counts those that arrived; LastArrived is the latest.
	Pending, Failing, Arrived int64
	LastArrived               *time.Time
}

// ArchiveQueue reads the outbox for the admin page: up to limit uploads not arrived, and
// the counts.
func (s *Store) ArchiveQueue(ctx context.Context, limit int) (ArchiveOutbox, error) {
	var out ArchiveOutbox
	db := s.db.WithContext(ctx)
	err := db.Select("id, kind, key, source_id, source_at, size, sha256, content_type, attempts, next_at, last_error, created_at").
		Where("done_at IS NULL").Order("attempts DESC, id").Limit(limit).Find(&out.Waiting).Error
	if err == nil {
		err = db.Model(&ArchiveUpload{}).Where("done_at IS NULL AND attempts = 0").Count(&out.Pending).Error
	}
	if err == nil {
		err = db.Model(&ArchiveUpload{}).Where("done_at IS NULL AND attempts > 0").Count(&out.Failing).Error
	}
	if err == nil {
		err = db.Model(&ArchiveUpload{}).Where("done_at IS NOT NULL").Count(&out.Arrived).Error
	}
	if err == nil && out.Arrived > 0 {
		var last ArchiveUpload
		if err = db.Select("done_at").Where("done_at IS NOT NULL").Order("done_at DESC").Limit(1).Take(&last).Error; err == nil {
			out.LastArrived = last.DoneAt
		}
	}
	if err != nil {
		return ArchiveOutbox{}, fmt.Errorf("models: archive outbox: %w", err)
	}
	return out, nil
}
