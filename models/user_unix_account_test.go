package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestSetUnixAccount: an admin sets and clears a user's Unix account, audited; a name that
// is no POSIX user name is refused naming unix_account, and an unknown user is not found.
func TestSetUnixAccount(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.CreateUser(ctx, "Ana.Li", "pw-ana", models.RoleUser, billT0); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"-ana", "1000", "ana li", "ana:x", "ana/..", strings.Repeat("a", 33), "ana\n", "ä"} {
			if err := s.SetUnixAccount(ctx, "root", "Ana.Li", bad, billT0); fieldName(err) != "unix_account" {
				t.Errorf("SetUnixAccount(%q) = %v, want a FieldError naming unix_account", bad, err)
			}
		}
		for _, good := range []string{"ana", "ana.li", "_svc", "Ana-Li_2", strings.Repeat("a", 32), ""} {
			if err := s.SetUnixAccount(ctx, "root", "Ana.Li", good, billT0); err != nil {
				t.Fatalf("SetUnixAccount(%q) = %v", good, err)
			}
			if u, _ := s.UserByName(ctx, "Ana.Li"); u.UnixAccount != good {
				t.Errorf("after SetUnixAccount(%q) the account is %q", good, u.UnixAccount)
			}
		}
		if err := s.SetUnixAccount(ctx, "root", "nobody", "ana", billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("SetUnixAccount of an unknown user = %v, want ErrNotFound", err)
		}
		log, err := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditUserUnixAccount})
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != 6 || log[0].Actor != "root" || log[0].Subject != "user Ana.Li" || !strings.Contains(log[0].Before, `"unix_account":"aaaa`) {
			t.Errorf("audit of the changes = %d entries, first %+v", len(log), log[0])
		}
	})
}
