package models

import (
	"time"

	"gorm.io/gorm"
)

// v19Reservation is migration 19's frozen reservation: cards of a spec booked for a project
// over a window, made when its request (kind reservation) was approved.
type v19Reservation struct {
	ID          int64
	ProjectID   int64     `gorm:"not null;index"`
	RequestID   int64     `gorm:"not null;index"`
	Spec        string    `gorm:"size:100;not null"`
	GPUs        int       `gorm:"column:gpus;not null"`
	StartsAt    time.Time `gorm:"not null"`
	EndsAt      time.Time `gorm:"not null;index"`
	CancelledAt *time.Time
	CancelledBy *int64
	CreatedAt   time.Time `gorm:"not null"`
}

func (v19Reservation) TableName() string { return "reservations" }

// migrateV19Reservations adds the advance reservations.
func migrateV19Reservations(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v19Reservation{})
}
