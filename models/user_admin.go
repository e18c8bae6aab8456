package models

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// Audit actions of user administration.
const (
	AuditUserDisable    = "user-disable"
	AuditUserEnable     = "user-enable"
	AuditPasswordReset  = "password-reset"
	AuditPasswordChange = "password-change"
)

// hashPassword checks a new password's length and hashes it.
func hashPassword(password string) (string, error) {
	if err := checkPassword(password); err != nil {
		return "", err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if err != nil {
		return "", fmt.Errorf("models: hash password: %w", err)
	}
	return string(hash), nil
}

// checkPassword refuses a password bcrypt cannot hash, or one too short to be one.
func checkPassword(password string) error {
	if len(password) < 4 || len(password) > 72 {
		return fieldErr("password", "must be 4 to 72 bytes")
	}
	return nil
}

// SetUserDisabled disables or enables the named user, by actor, in one transaction with its
// audit entry; disabling also ends the user's sessions (its API tokens stop working with
// it). An admin cannot disable themselves. Unknown names are ErrNotFound.
func (s *Store) SetUserDisabled(ctx context.Context, actor, name string, disabled bool, now time.Time) error {
	if disabled && actor == name {
		return fieldErr("name", "you cannot disable yourself")
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Scopes(textIs("name", name)).Take(&u).Error; err != nil {
			return notFound("user "+name, err)
		}
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Update("disabled", disabled).Error; err != nil {
			return fmt.Errorf("models: disable user %q: %w", name, err)
		}
		action := AuditUserEnable
		if disabled {
			action = AuditUserDisable
			if err := tx.Where("user_id = ?", u.ID).Delete(&Session{}).Error; err != nil {
				return fmt.Errorf("models: end sessions of %q: %w", name, err)
			}
		}
		return audit(tx, now, actor, action, nil, "user "+name, map[string]bool{"disabled": u.Disabled}, map[string]bool{"disabled": disabled})
	})
}

// ResetPassword sets the named user's password (an admin's reset), ends their sessions,
// revokes their API tokens and records it, in one transaction: whoever knew the old
// password, or held what it let them make, is out. Unknown names are ErrNotFound.
func (s *Store) ResetPassword(ctx context.Context, actor, name, password string, now time.Time) error {
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Scopes(textIs("name", name)).Take(&u).Error; err != nil {
			return notFound("user "+name, err)
		}
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Update("password_hash", hash).Error; err != nil {
			return fmt.Errorf("models: reset password of %q: %w", name, err)
		}
		if err := tx.Where("user_id = ?", u.ID).Delete(&Session{}).Error; err != nil {
			return fmt.Errorf("models: end sessions of %q: %w", name, err)
		}
		if err := tx.Model(&APIToken{}).Where("user_id = ? AND revoked_at IS NULL", u.ID).Update("revoked_at", UTC(now)).Error; err != nil {
			return fmt.Errorf("models: revoke tokens of %q: %w", name, err)
		}
		return audit(tx, now, actor, AuditPasswordReset, nil, "user "+name, nil, nil)
	})
}

// ChangePassword replaces a user's own password when current matches and ends every other
// session of the user: all but the one whose token is keep (the browser the change came
// from). API tokens stay. The update only applies to the hash that was checked, so two
// changes at once cannot both win; the loser is ErrConflict. A wrong current password is a
// FieldError naming "current".
func (s *Store) ChangePassword(ctx context.Context, userID int64, current, next, keep string, now time.Time) error {
	hash, err := hashPassword(next)
	if err != nil {
		return err
	}
	var u User
	if err := s.db.WithContext(ctx).Where("id = ?", userID).Take(&u).Error; err != nil {
		return notFound("user", err)
	}
	var mismatch error
	if err := withHashSlot(ctx, func() { mismatch = bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(current)) }); err != nil {
		return fmt.Errorf("models: change password: %w", err)
	}
	if mismatch != nil {
		return fieldErr("current", "is not your current password")
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&User{}).Where("id = ? AND password_hash = ?", userID, u.PasswordHash).Update("password_hash", hash)
		if res.Error != nil {
			return fmt.Errorf("models: change password: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: change password: changed meanwhile: %w", ErrConflict)
		}
		if err := tx.Where("user_id = ? AND token_hash <> ?", userID, HashToken(keep)).Delete(&Session{}).Error; err != nil {
			return fmt.Errorf("models: change password: end other sessions: %w", err)
		}
		return audit(tx, now, u.Name, AuditPasswordChange, nil, "user "+u.Name, nil, nil)
	})
}
