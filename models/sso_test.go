package models_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestSignInExternalAppliesGroups: the first sign-in creates the user with the roles their
// groups map to (stored and configured rules); a sign-in after a group was left takes its
// access away; a local user's name is never taken over; a disabled user is refused.
func TestSignInExternalAppliesGroups(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		lim := models.SessionLimits{Idle: 1e12, Absolute: 1e12}
		recsys, _ := s.CreateProject(ctx, "root", "recsys", nil, billT0)
		vision, _ := s.CreateProject(ctx, "root", "vision", nil, billT0)
		if _, err := s.CreateUser(ctx, "ana", "pw-ana", models.RoleAdmin, billT0); err != nil {
			t.Fatal(err)
		}
		for _, r := range []models.SSORule{
			{Method: models.SourceOIDC, GroupName: "ml-leads", ProjectName: "recsys", Role: models.ProjectRoleLead},
			{Method: models.SourceOIDC, GroupName: "ml", ProjectName: "recsys", Role: models.ProjectRoleMember},
			{Method: models.SourceOIDC, GroupName: "finance", Role: models.RoleFinance},
			{Method: models.SourceLDAP, GroupName: "ml", ProjectName: "vision", Role: models.ProjectRoleMember},
		} {
			if _, err := s.CreateSSORule(ctx, "root", r, billT0); err != nil {
				t.Fatal(err)
			}
		}
		configured, err := models.ParseSSORule("oidc:CV Team=vision:member")
		if err != nil {
			t.Fatal(err)
		}
		extra := []models.SSORule{configured}
		id := models.ExternalIdentity{Method: models.SourceOIDC, ID: "https://idp sub-1", Name: "ana@example.org",
			Groups: []string{"ml", "ML-Leads", "cv team"}}
		u, tok, err := s.SignInExternal(ctx, id, extra, lim, billT0)
		if err != nil {
			t.Fatal(err)
		}
		if u.Name != "ana-2" || u.Role != models.RoleUser || u.Source != models.SourceOIDC {
			t.Errorf("first sign-in made %+v, want ana-2, a user from oidc (ana is a local admin)", u)
		}
		if _, err := s.SessionUser(ctx, tok, lim, billT0); err != nil {
			t.Errorf("the sign-in's session: %v", err)
		}
		if m, err := s.SessionMethod(ctx, tok); m != models.SourceOIDC || err != nil {
			t.Errorf("SessionMethod = %q, %v, want oidc", m, err)
		}
		got, _ := s.Memberships(ctx, u.ID)
		want := map[int64]string{recsys.ID: models.ProjectRoleLead, vision.ID: models.ProjectRoleMember}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("memberships after the first sign-in (-want +got):\n%s", diff)
		}
		// Left ml-leads and CV Team, joined finance.
		id.Groups = []string{"ml", "finance"}
		u2, _, err := s.SignInExternal(ctx, id, extra, lim, billT0)
		if err != nil {
			t.Fatal(err)
		}
		if u2.ID != u.ID || u2.Role != models.RoleFinance {
			t.Errorf("second sign-in = %+v, want the same user, finance", u2)
		}
		got, _ = s.Memberships(ctx, u.ID)
		if diff := cmp.Diff(map[int64]string{recsys.ID: models.ProjectRoleMember}, got); diff != "" {
			t.Errorf("memberships after leaving groups (-want +got):\n%s", diff)
		}
		id.Groups = nil
		if u3, _, _ := s.SignInExternal(ctx, id, extra, lim, billT0); u3.Role != models.RoleUser {
			t.Errorf("in no group: role %q, want user", u3.Role)
		}
		if got, _ = s.Memberships(ctx, u.ID); len(got) != 0 {
			t.Errorf("in no group: memberships %v, want none", got)
		}
		if _, err := s.Authenticate(ctx, "ana-2", ""); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("a directory user's password login = %v, want ErrNotFound", err)
		}
		if err := s.SetUserDisabled(ctx, "ana", "ana-2", true, billT0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.SignInExternal(ctx, id, extra, lim, billT0); !errors.Is(err, models.ErrDisabled) {
			t.Errorf("a disabled user's sign-in = %v, want ErrDisabled", err)
		}
		log, _ := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditLogin})
		if len(log) == 0 || log[0].After != `{"method":"oidc","projects":{},"role":"user"}` {
			t.Errorf("the last login's audit = %+v, want the method and what was applied", log)
		}
	})
}

// TestSSOStateTakenOnce: a sign-in's state is taken once, by one of concurrent tries, not
// after it expired, and only by the method it was begun at.
func TestSSOStateTakenOnce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if err := s.SaveSSOState(ctx, "oidc", "st-1", "n-1", "v-1", "/board", billT0); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 4 {
			wg.Go(func() {
				if st, err := s.TakeSSOState(ctx, "oidc", "st-1", billT0); err == nil {
					mu.Lock()
					won++
					mu.Unlock()
					if st.Nonce != "n-1" || st.Verifier != "v-1" || st.Next != "/board" {
						t.Errorf("taken state = %+v", st)
					}
				}
			})
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d concurrent takes won, want 1", won)
		}
		s.SaveSSOState(ctx, "oidc", "st-2", "n", "v", "/", billT0)
		if _, err := s.TakeSSOState(ctx, "oidc", "st-2", billT0.Add(11*60e9)); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("an expired state = %v, want ErrNotFound", err)
		}
		s.SaveSSOState(ctx, "dingtalk", "st-3", "", "", "/", billT0)
		if _, err := s.TakeSSOState(ctx, "wecom", "st-3", billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("DingTalk's state at WeCom's return = %v, want ErrNotFound", err)
		}
		if _, err := s.TakeSSOState(ctx, "dingtalk", "st-3", billT0); err != nil {
			t.Errorf("DingTalk's state at its own return = %v", err)
		}
	})
}

// TestSignInExternalKeepsChatID: a sign-in through a team chat stores the person's id there
// as their chat id in that chat (the robots then mention them), noted in the audit log, and
// an id the chat ids' rule refuses is left out; an OIDC sign-in keeps its refresh token, and
// one without leaves the stored one.
func TestSignInExternalKeepsChatID(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		lim := models.SessionLimits{Idle: time.Hour, Absolute: time.Hour}
		id := models.ExternalIdentity{Method: models.SourceWeCom, ID: "AnaLi", Name: "AnaLi", ChatID: "AnaLi", Groups: []string{"7"}}
		if _, _, err := s.SignInExternal(ctx, id, nil, lim, billT0); err != nil {
			t.Fatal(err)
		}
		if ids, err := s.ChatIDsOf(ctx, "AnaLi"); err != nil || ids != (models.ChatIDs{WeCom: "AnaLi"}) {
			t.Errorf("ChatIDsOf(AnaLi) = %+v, %v, want WeCom AnaLi", ids, err)
		}
		log, _ := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditLogin})
		if len(log) != 1 || !strings.Contains(log[0].After, `"chat_id":"AnaLi"`) || !strings.Contains(log[0].After, `"method":"wecom"`) {
			t.Errorf("the sign-in's audit = %+v, want its method and chat id", log)
		}
		id = models.ExternalIdentity{Method: models.SourceFeishu, ID: "ou_x", Name: "x", ChatID: "<at all>"}
		if _, _, err := s.SignInExternal(ctx, id, nil, lim, billT0); err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.ChatIDsOf(ctx, "x"); ids != (models.ChatIDs{}) {
			t.Errorf("a chat id with markup was stored: %+v", ids)
		}
		id = models.ExternalIdentity{Method: models.SourceOIDC, ID: "iss sub", Name: "cy", Refresh: "sealed-1"}
		s.SignInExternal(ctx, id, nil, lim, billT0)
		id.Refresh = ""
		s.SignInExternal(ctx, id, nil, lim, billT0)
		if u, _ := s.UserByName(ctx, "cy"); u.SSORefresh != "sealed-1" {
			t.Errorf("cy's refresh token = %q, want sealed-1 kept", u.SSORefresh)
		}
		if _, _, err := s.SignInExternal(ctx, models.ExternalIdentity{Method: "slack", ID: "x"}, nil, lim, billT0); fieldName(err) != "method" {
			t.Errorf("an unknown method = %v, want a method field error", err)
		}
	})
}

// TestSSORuleBounds: a rule names a known method, a group, and a role that fits whether a
// project is named; ParseSSORule reads an LDAP DN whole.
func TestSSORuleBounds(t *testing.T) {
	r, err := models.ParseSSORule("ldap:cn=ml,ou=groups,dc=example,dc=org=recsys:lead")
	if err != nil || r.GroupName != "cn=ml,ou=groups,dc=example,dc=org" || r.ProjectName != "recsys" || r.Role != "lead" {
		t.Errorf("ParseSSORule(DN) = %+v, %v", r, err)
	}
	for line, field := range map[string]string{
		"oidc:g=owner":       "role",
		"oidc:g=lead":        "project",
		"oidc:g=p:admin":     "role",
		"saml:g=admin":       "method",
		"oidc:=admin":        "group",
		"oidc-no-rule":       "rule",
		"oidc:g=:member":     "project",
		"oidc: g =viewer":    "",
		"wecom:7=viewer":     "",
		"feishu:od-1=p:lead": "",
	} {
		_, err := models.ParseSSORule(line)
		if got := fieldName(err); got != field {
			t.Errorf("ParseSSORule(%q) = %v, want field %q", line, err, field)
		}
	}
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		_, err := s.CreateSSORule(ctx, "root", models.SSORule{Method: "oidc", GroupName: "g", ProjectName: "nope", Role: "member"}, billT0)
		if fieldName(err) != "project" {
			t.Errorf("a rule of an unknown project = %v, want a project field error", err)
		}
		r, err := s.CreateSSORule(ctx, "root", models.SSORule{Method: "oidc", GroupName: " admins ", Role: "admin"}, billT0)
		if err != nil {
			t.Fatal(err)
		}
		rules, _ := s.SSORules(ctx)
		if len(rules) != 1 || rules[0].GroupName != "admins" {
			t.Errorf("SSORules = %+v", rules)
		}
		if err := s.DeleteSSORule(ctx, "root", r.ID, billT0); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSSORule(ctx, "root", r.ID, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleting twice = %v, want ErrNotFound", err)
		}
	})
}

// TestDirectorySync: a sync applies the groups' rules without a sign-in (the session stays),
// and a user the directory no longer vouches for is disabled with every session ended and
// every API token revoked, which re-enabling does not bring back; other methods' and local
// users are untouched.
func TestDirectorySync(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		lim := models.SessionLimits{Idle: 1e12, Absolute: 1e12}
		p, _ := s.CreateProject(ctx, "root", "recsys", nil, billT0)
		rule, _ := models.ParseSSORule("ldap:ml=recsys:lead")
		rules := []models.SSORule{rule}
		id := models.ExternalIdentity{Method: models.SourceLDAP, ID: "uid=ana,dc=x", Name: "ana", Groups: []string{"ml"}}
		u, sess, err := s.SignInExternal(ctx, id, rules, lim, billT0)
		if err != nil {
			t.Fatal(err)
		}
		tok, _, _ := s.CreateAPIToken(ctx, u.ID, "script", models.ScopeWrite, billT0)
		if users, _ := s.ExternalUsers(ctx, models.SourceLDAP); len(users) != 1 || users[0].ID != u.ID {
			t.Errorf("ExternalUsers(ldap) = %+v, want ana", users)
		}
		id.Groups = []string{"other"}
		if err := s.SyncExternal(ctx, id, rules, billT0); err != nil {
			t.Fatal(err)
		}
		if m, _ := s.Memberships(ctx, u.ID); len(m) != 0 {
			t.Errorf("after a sync out of ml: memberships %v, want none (had %d)", m, p.ID)
		}
		if _, err := s.SessionUser(ctx, sess, lim, billT0); err != nil {
			t.Errorf("a sync ended the session: %v", err)
		}
		if err := s.DisableExternal(ctx, models.SourceOIDC, id.ID, billT0); err != nil {
			t.Fatal(err)
		}
		if u, _ := s.UserByName(ctx, "ana"); u.Disabled {
			t.Error("another method's disable disabled an ldap user")
		}
		if err := s.DisableExternal(ctx, models.SourceLDAP, id.ID, billT0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, sess, lim, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("session after the directory disabled ana = %v, want ErrNotFound", err)
		}
		s.SetUserDisabled(ctx, "root", "ana", false, billT0)
		if _, _, err := s.TokenUser(ctx, tok, billT0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("token after the directory disabled ana and an admin enabled her = %v, want revoked", err)
		}
	})
}
