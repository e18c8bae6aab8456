package models

import (
	"time"

	"gorm.io/gorm"
)

// v49ArchiveUpload is migration 49's frozen record of one object to write to the archive:
// the outbox that the archive's worker empties.
type v49ArchiveUpload struct {
	ID          int64
	Kind        string    `gorm:"size:20;not null;index:idx_archive_uploads_kind,priority:1"`
	Key         string    `gorm:"size:1024;not null;uniqueIndex"`
	SourceID    int64     `gorm:"not null;index:idx_archive_uploads_kind,priority:2"`
	SourceAt    time.Time `gorm:"not null"`
	Body        []byte
	Size        int64     `gorm:"not null"`
	SHA256      string    `gorm:"column:sha256;size:64;not null"`
	ContentType string    `gorm:"size:100;not null"`
	Attempts    int       `gorm:"not null"`
	NextAt      time.Time `gorm:"not null;index"`
	LastError   string    `gorm:"size:1000;not null"`
	CreatedAt   time.Time `gorm:"not null"`
	DoneAt      *time.Time
	VersionID   string `gorm:"size:200;not null"`
}

func (v49ArchiveUpload) TableName() string { return "archive_uploads" }

// migrateV49Archive adds the archive's outbox.
func migrateV49Archive(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v49ArchiveUpload{})
}
