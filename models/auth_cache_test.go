package models_test

import (
	"context"
	"errors"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// A cached token and a cached caller's roles lose their power the moment a write on this
// replica changes them: a token revoked, a user disabled, a member removed, a role changed.
func TestAuthCacheForgetsOnWrite(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		u, err := s.CreateUser(ctx, "ana", "pw-ana-123", models.RoleUser, billT0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.CreateProject(ctx, "root", "vision", nil, billT0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
			t.Fatal(err)
		}
		roles := func() map[int64]string {
			t.Helper()
			r, err := s.CallerRoles(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		if r := roles(); r[p.ID] != models.ProjectRoleMember {
			t.Fatalf("CallerRoles = %v, want member of %d", r, p.ID)
		}
		roles()[p.ID] = models.ProjectRoleLead // a caller's copy: the cache's is not changed
		if r := roles(); r[p.ID] != models.ProjectRoleMember {
			t.Fatalf("CallerRoles after a caller changed its copy = %v, want member", r)
		}
		if err := s.SetMember(ctx, p.ID, u.ID, models.ProjectRoleLead); err != nil {
			t.Fatal(err)
		}
		if r := roles(); r[p.ID] != models.ProjectRoleLead {
			t.Errorf("CallerRoles after a promotion = %v, want lead", r)
		}
		if err := s.SetMember(ctx, p.ID, u.ID, ""); err != nil {
			t.Fatal(err)
		}
		if r := roles(); len(r) != 0 {
			t.Errorf("CallerRoles after the removal = %v, want none", r)
		}

		tok, row, err := s.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, billT0)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // read, then from the cache
			if got, _, err := s.TokenUser(ctx, tok, billT0); err != nil || got.Name != "ana" {
				t.Fatalf("TokenUser = %v, %v, want ana", got, err)
			}
		}
		if err := s.SetUserDisabled(ctx, "root", "ana", true, billT0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TokenUser(ctx, tok, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("TokenUser of a user just disabled = %v, want ErrNotFound", err)
		}
		if err := s.SetUserDisabled(ctx, "root", "ana", false, billT0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TokenUser(ctx, tok, billT0); err != nil {
			t.Fatalf("TokenUser re-enabled = %v", err)
		}
		if err := s.RevokeAPIToken(ctx, u.ID, row.ID, billT0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TokenUser(ctx, tok, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("TokenUser of a token just revoked = %v, want ErrNotFound", err)
		}
	})
}

// A caller's roles read while a transaction removes them, before it commits, are the old
// ones, and are not served once it has committed.
func TestAuthCacheForgetsAtCommit(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		u, _ := s.CreateUser(ctx, "ana", "pw-ana-123", models.RoleUser, billT0)
		p, _ := s.CreateProject(ctx, "root", "vision", nil, billT0)
		if err := s.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
			t.Fatal(err)
		}
		var during map[int64]string
		err := models.RemoveMemberInTx(ctx, s, p.ID, u.ID, func() {
			var err error
			if during, err = s.CallerRoles(ctx, u.ID); err != nil {
				t.Error(err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if during[p.ID] != models.ProjectRoleMember {
			t.Fatalf("roles read during the transaction = %v, want the old ones (member)", during)
		}
		if r, err := s.CallerRoles(ctx, u.ID); err != nil || len(r) != 0 {
			t.Errorf("CallerRoles after the commit = %v, %v, want none", r, err)
		}
	})
}

// On another replica a revoked token works until its cached entry is older than the cache's
// bound (docs/decisions.md); a token it never read is refused at once.
func TestAuthCacheOtherReplica(t *testing.T) {
	modelstest.ForEachDBReplicas(t, models.Options{}, func(t *testing.T, a, b *models.Store) {
		ctx := context.Background()
		u, _ := a.CreateUser(ctx, "ana", "pw-ana-123", models.RoleUser, billT0)
		tok, row, err := a.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, billT0)
		if err != nil {
			t.Fatal(err)
		}
		other, row2, err := a.CreateAPIToken(ctx, u.ID, "other", models.ScopeWrite, billT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.TokenUser(ctx, tok, billT0); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{row.ID, row2.ID} {
			if err := a.RevokeAPIToken(ctx, u.ID, id, billT0); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := b.TokenUser(ctx, tok, billT0); err != nil {
			t.Errorf("replica b, within the bound, refuses the token it verified: %v", err)
		}
		if _, _, err := b.TokenUser(ctx, other, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("replica b accepts a revoked token it never verified: %v", err)
		}
		if _, _, err := a.TokenUser(ctx, tok, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("replica a accepts the token it revoked: %v", err)
		}
	})
}
