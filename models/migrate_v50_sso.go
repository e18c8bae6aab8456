package models

import (
	"time"

	"gorm.io/gorm"
)

// Migration 50's frozen additions: where a user comes from (a local password, or a
// directory: OIDC, LDAP) and the directory's id for them, the method a session signed in
// with, the mapping rules from directory groups to projects and roles, and the sign-ins
// under way (state, nonce and PKCE verifier, each used once).
type (
	v50User struct {
		Source     string `gorm:"size:20;not null;default:''"`
		ExternalID string `gorm:"size:500;not null;default:''"`
	}
	v50Session struct {
		Method string `gorm:"size:20;not null;default:''"`
	}
	v50SSORule struct {
		ID        int64
		Method    string     `gorm:"size:20;not null"`
		GroupName string     `gorm:"size:500;not null"`
		ProjectID *int64     `gorm:"index"`
		Project   *v1Project `gorm:"constraint:OnDelete:CASCADE"`
		Role      string     `gorm:"size:20;not null"`
		CreatedBy string     `gorm:"size:100;not null"`
		CreatedAt time.Time  `gorm:"not null"`
	}
	v50SSOState struct {
		ID        int64
		StateHash string    `gorm:"size:64;not null;uniqueIndex"`
		Nonce     string    `gorm:"size:100;not null"`
		Verifier  string    `gorm:"size:100;not null"`
		Next      string    `gorm:"size:2000;not null"`
		ExpiresAt time.Time `gorm:"not null;index"`
	}
)

func (v50User) TableName() string     { return "users" }
func (v50Session) TableName() string  { return "sessions" }
func (v50SSORule) TableName() string  { return "sso_rules" }
func (v50SSOState) TableName() string { return "sso_states" }

// migrateV50SSO adds sign-in through the organisation's directory. Users and sessions stored
// before are local ones.
func migrateV50SSO(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, col := range []string{"Source", "ExternalID"} {
		if err := m.AddColumn(&v50User{}, col); err != nil {
			return err
		}
	}
	if err := m.AddColumn(&v50Session{}, "Method"); err != nil {
		return err
	}
	if err := m.CreateTable(&v50SSORule{}, &v50SSOState{}); err != nil {
		return err
	}
	// One user per directory identity; local users have none.
	return tx.Exec("CREATE UNIQUE INDEX idx_users_external_id ON users (source, external_id) WHERE external_id <> ''").Error
}
