package models

import "gorm.io/gorm"

// v26Reservation is migration 26's frozen addition to a reservation: the region its cards
// are held in, "" for every region of its spec.
type v26Reservation struct {
	Region string `gorm:"size:64;not null;default:''"`
}

func (v26Reservation) TableName() string { return "reservations" }

// migrateV26ReservationRegion lets a reservation book cards in one region.
func migrateV26ReservationRegion(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v26Reservation{}, "Region")
}
