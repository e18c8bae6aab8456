package models

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// AuditUserUnixAccount is the audit action of a change of a user's Unix account.
const AuditUserUnixAccount = "user-unix-account"

// unixAccountRE is a Unix account name as POSIX allows it portably: letters, digits, '.',
// '_' and '-', starting with a letter or '_' (so never a number, which tools would read as
// a uid), at most 32 characters (Linux's limit).
var unixAccountRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9._-]{0,31}$`)

// ValidUnixAccount reports whether name is a Unix account name a user may be given.
func ValidUnixAccount(name string) bool { return unixAccountRE.MatchString(name) }

// SetUnixAccount sets the Unix account the named user's tasks run as on the nodes ("" for
// none), by actor, in one transaction with its audit entry. An account that is no POSIX
// user name is a FieldError naming unix_account; unknown users are ErrNotFound.
func (s *Store) SetUnixAccount(ctx context.Context, actor, name, account string, now time.Time) error {
	if account != "" && !ValidUnixAccount(account) {
		return fieldErr("unix_account", "must be a Unix user name: 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or '_'")
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Scopes(textIs("name", name)).Take(&u).Error; err != nil {
			return notFound("user "+name, err)
		}
		if u.UnixAccount == account {
			return nil
		}
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Update("unix_account", account).Error; err != nil {
			return fmt.Errorf("models: unix account of %q: %w", name, err)
		}
		return audit(tx, now, actor, AuditUserUnixAccount, nil, "user "+name,
			map[string]string{"unix_account": u.UnixAccount}, map[string]string{"unix_account": account})
	})
}
