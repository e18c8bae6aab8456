package models

import "gorm.io/gorm"

// Migration 58's frozen additions: the method a sign-in under way was begun for (OIDC or a
// team chat), so its state is taken only by that method's return; and an OIDC user's refresh
// token (sealed by the relying party), with which the provider is asked on a period whether
// it still vouches for them.
type (
	v58SSOState struct {
		Method string `gorm:"size:20;not null;default:''"`
	}
	v58User struct {
		SSORefresh string `gorm:"column:sso_refresh;type:text;not null;default:''"`
	}
)

func (v58SSOState) TableName() string { return "sso_states" }
func (v58User) TableName() string     { return "users" }

// migrateV58ChatSignIn adds them; sign-ins under way before it are no method's (they expire).
func migrateV58ChatSignIn(tx *gorm.DB) error {
	if err := tx.Migrator().AddColumn(&v58SSOState{}, "Method"); err != nil {
		return err
	}
	return tx.Migrator().AddColumn(&v58User{}, "SSORefresh")
}
