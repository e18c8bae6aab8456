package models

import "gorm.io/gorm"

// Migration 36's frozen addition: the Unix account a user's tasks run as on the nodes.
type v36User struct {
	UnixAccount string `gorm:"not null;default:''"`
}

func (v36User) TableName() string { return "users" }

// migrateV36UnixAccount gives each user a Unix account, empty: none set yet.
func migrateV36UnixAccount(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v36User{}, "UnixAccount")
}
