package models_test

import (
	"context"
	"errors"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestUserAdmin(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		lim := models.SessionLimits{Idle: 1e12, Absolute: 1e12}
		u, _ := s.CreateUser(ctx, "ana", "pw-ana", models.RoleUser, billT0)
		sess, _ := s.CreateSession(ctx, u.ID, lim, billT0)
		if err := s.SetUserDisabled(ctx, "root", "ana", true, billT0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, sess, lim, billT0); err == nil {
			t.Error("a disabled user's session still works")
		}
		if _, err := s.Authenticate(ctx, "ana", "pw-ana"); err == nil {
			t.Error("a disabled user logs in")
		}
		if err := s.SetUserDisabled(ctx, "root", "ana", false, billT0); err != nil {
			t.Fatal(err)
		}
		if err := s.SetUserDisabled(ctx, "ana", "ana", true, billT0); fieldName(err) != "name" {
			t.Errorf("disabling oneself = %v, want a FieldError", err)
		}
		if err := s.SetUserDisabled(ctx, "root", "nobody", true, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("disabling nobody = %v", err)
		}
		if err := s.ResetPassword(ctx, "root", "ana", "x", billT0); fieldName(err) != "password" {
			t.Errorf("short reset = %v", err)
		}
		tok, _, _ := s.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, billT0)
		sess, _ = s.CreateSession(ctx, u.ID, lim, billT0)
		if err := s.ResetPassword(ctx, "root", "ana", "new-pw", billT0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, sess, lim, billT0); err == nil {
			t.Error("a session outlives a password reset")
		}
		if _, _, err := s.TokenUser(ctx, tok, billT0); err == nil {
			t.Error("an API token outlives a password reset")
		}
		tok, _, _ = s.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, billT0)
		here, _ := s.CreateSession(ctx, u.ID, lim, billT0)
		there, _ := s.CreateSession(ctx, u.ID, lim, billT0)
		if err := s.ChangePassword(ctx, u.ID, "pw-ana", "mine-now", here, billT0); fieldName(err) != "current" {
			t.Errorf("change with the old password = %v, want a FieldError naming current", err)
		}
		if _, err := s.SessionUser(ctx, there, lim, billT0); err != nil {
			t.Errorf("a refused change ended another session: %v", err)
		}
		if err := s.ChangePassword(ctx, u.ID, "new-pw", "mine-now", here, billT0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, there, lim, billT0); err == nil {
			t.Error("another session outlives a password change")
		}
		if _, err := s.SessionUser(ctx, here, lim, billT0); err != nil {
			t.Errorf("the session that changed the password ended: %v", err)
		}
		if _, _, err := s.TokenUser(ctx, tok, billT0); err != nil {
			t.Errorf("an API token ended with its user's own password change: %v", err)
		}
		if _, err := s.Authenticate(ctx, "ana", "mine-now"); err != nil {
			t.Errorf("login with the changed password: %v", err)
		}
		es, _ := s.AuditLog(ctx, models.AuditFilter{Limit: 10})
		var actions []string
		for _, e := range es {
			actions = append(actions, e.Action)
		}
		if len(actions) != 4 {
			t.Errorf("audit actions = %v, want disable, enable, reset, change", actions)
		}
	})
}
