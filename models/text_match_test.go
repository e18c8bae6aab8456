package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// A lookup by a name or key a request sent finds nothing when the text cannot be stored
// (not UTF-8, or with a NUL), on both databases: Postgres refuses such a parameter, and an
// unchecked lookup answered an internal error there and "not found" on SQLite.
func TestLookupsByUnstorableTextFindNothing(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		if _, err := s.EnsureProject(ctx, "vision", now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateUser(ctx, "alice", "correct horse battery", "user", now); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"\xff", "vision\x00", "ali\xc3", "\x00"} {
			for what, err := range map[string]error{
				"ProjectByName":   first(s.ProjectByName(ctx, bad)),
				"UserByName":      first(s.UserByName(ctx, bad)),
				"Authenticate":    first(s.Authenticate(ctx, bad, "correct horse battery")),
				"MachineByKey":    first(s.MachineByKey(ctx, bad)),
				"ResumePool":      first(s.ResumePool(ctx, bad, now)),
				"RollBack":        first(s.RollBackPoolConfig(ctx, bad, 1, "admin", now)),
				"SetUserDisabled": s.SetUserDisabled(ctx, "admin", bad, true, now),
				"ResetPassword":   s.ResetPassword(ctx, "admin", bad, "another long password", now),
				"SetChatIDs":      s.SetChatIDs(ctx, "admin", bad, models.ChatIDs{DingTalk: "d1"}, now),
				"SetUnixAccount":  s.SetUnixAccount(ctx, "admin", bad, "alice", now),
			} {
				if !errors.Is(err, models.ErrNotFound) {
					t.Errorf("%s(%q) = %v, want ErrNotFound", what, bad, err)
				}
			}
			if ids, err := s.ChatIDsOf(ctx, bad); err != nil || ids != (models.ChatIDs{}) {
				t.Errorf("ChatIDsOf(%q) = %v, %v, want none", bad, ids, err)
			}
			if vs, err := s.PoolConfigVersions(ctx, bad); err != nil || len(vs) != 0 {
				t.Errorf("PoolConfigVersions(%q) = %v, %v, want none", bad, vs, err)
			}
		}
	})
}

// first is a call's error, its value dropped.
func first[T any](_ T, err error) error { return err }
