package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"kashi/models"
	"kashi/sso"
)

// ssoConfig is how people sign in through the organisation's directory (#38).
type ssoConfig struct {
	// OIDCIssuer names an OpenID provider; "" offers none. OIDCClientSecret is never logged.
	OIDCIssuer       string
	OIDCClientID     string
	OIDCClientSecret string
	OIDCName         string
	OIDCScopes       []string
	OIDCGroupsClaim  string
	// RulesFile holds mapping rules, one a line (models.ParseSSORule); Rules is it read.
	RulesFile string
	Rules     []models.SSORule
	// PasswordLogin is "all" or "admins" (only local admins sign in with a password).
	PasswordLogin string
	// LDAP is the directory people sign in against with the login form's name and
	// password (its URL "" for none), synced every LDAPSyncEvery.
	LDAP          sso.LDAPConfig
	LDAPSyncEvery time.Duration
	// Chats are the team chats' login apps (DingTalk, Feishu, WeCom), each offered when its
	// app id is given; their secrets are never logged.
	Chats [3]sso.ChatConfig
	// OIDCCheckEvery is how often the provider is asked, with each OIDC user's refresh
	// token, whether it still vouches for them; 0 never.
	OIDCCheckEvery time.Duration
}

// ssoFlags defines the sign-in flags on f.
func ssoFlags(f *flags, c *ssoConfig) {
	f.String(&c.OIDCIssuer, "oidc-issuer", "", "the OpenID provider's issuer URL (Keycloak: https://HOST/realms/REALM); needs --oidc-client-id and --public-url")
	f.String(&c.OIDCClientID, "oidc-client-id", "", "Kashi's client id at the OpenID provider")
	f.Secret(&c.OIDCClientSecret, "oidc-client-secret", "Kashi's client secret at the OpenID provider")
	f.String(&c.OIDCName, "oidc-name", "SSO", "the provider's name on the login page's button")
	f.List(&c.OIDCScopes, "oidc-scope", "a scope asked besides openid (repeatable; default profile and email)")
	f.String(&c.OIDCGroupsClaim, "oidc-groups-claim", "groups", "the ID token's or user info's claim that lists the person's groups")
	f.String(&c.RulesFile, "sso-rules", "", "a file of mapping rules, one a line: METHOD:GROUP=ROLE or METHOD:GROUP=PROJECT:ROLE ('#' begins a comment)")
	f.String(&c.LDAP.URL, "ldap-url", "", "the LDAP directory or Active Directory: ldap://HOST:389 or ldaps://HOST:636")
	f.Bool(&c.LDAP.StartTLS, "ldap-start-tls", false, "upgrade the ldap:// connection with StartTLS before binding")
	f.String(&c.LDAP.CAFile, "ldap-ca-file", "", "PEM certificates of the CA that signed the directory's (default: the system's)")
	f.String(&c.LDAP.BindDN, "ldap-bind-dn", "", "the service account that searches the directory")
	f.Secret(&c.LDAP.BindPassword, "ldap-bind-password", "the service account's password")
	f.String(&c.LDAP.BaseDN, "ldap-base-dn", "", "where people and groups are searched")
	f.String(&c.LDAP.UserFilter, "ldap-user-filter", "(&(objectClass=inetOrgPerson)(uid=%s))", "finds a person by the name typed (%s); AD: (&(objectClass=user)(sAMAccountName=%s)(!(userAccountControl:1.2.840.113556.1.4.803:=2)))")
	f.String(&c.LDAP.NameAttr, "ldap-name-attr", "uid", "the attribute holding that name (AD: sAMAccountName)")
	f.Duration(&c.LDAPSyncEvery, "ldap-sync-every", 15*time.Minute, "how often the directory's people are read again: roles follow their groups, and people gone or excluded by the filter are disabled")
	f.Duration(&c.OIDCCheckEvery, "oidc-check-every", 10*time.Minute, "how often the OpenID provider is asked, with each person's refresh token, whether it still vouches for them: one it refuses (disabled there) is disabled, their sessions and API tokens ended (0: never)")
	chatFlags(f, &c.Chats)
	f.String(&c.PasswordLogin, "password-login", "all", "who may sign in with a Kashi password: all, or admins (break-glass local admins only)")
}

// check validates the sign-in flags and reads the rules file.
func (c *ssoConfig) check(publicURL string) error {
	if c.PasswordLogin != "all" && c.PasswordLogin != "admins" {
		return fmt.Errorf("--password-login must be all or admins, got %q", c.PasswordLogin)
	}
	if c.OIDCIssuer != "" {
		switch {
		case c.OIDCClientID == "":
			return errors.New("--oidc-issuer needs --oidc-client-id")
		case publicURL == "":
			return errors.New("--oidc-issuer needs --public-url: the provider sends people back to PUBLIC-URL/login/oidc/callback")
		}
	}
	if c.LDAP.URL != "" {
		switch {
		case !strings.HasPrefix(c.LDAP.URL, "ldap://") && !strings.HasPrefix(c.LDAP.URL, "ldaps://"):
			return fmt.Errorf("--ldap-url must begin ldap:// or ldaps://, got %q", c.LDAP.URL)
		case c.LDAP.BaseDN == "":
			return errors.New("--ldap-url needs --ldap-base-dn")
		case !strings.Contains(c.LDAP.UserFilter, "%s"):
			return fmt.Errorf("--ldap-user-filter must hold %%s for the name, got %q", c.LDAP.UserFilter)
		case c.LDAPSyncEvery < time.Minute || c.LDAPSyncEvery > 24*time.Hour:
			return fmt.Errorf("--ldap-sync-every must be from 1m to 24h, got %s", c.LDAPSyncEvery)
		}
	}
	if c.OIDCCheckEvery != 0 && (c.OIDCCheckEvery < time.Minute || c.OIDCCheckEvery > 24*time.Hour) {
		return fmt.Errorf("--oidc-check-every must be 0 or from 1m to 24h, got %s", c.OIDCCheckEvery)
	}
	if err := checkChats(c.Chats, publicURL); err != nil {
		return err
	}
	if c.RulesFile == "" {
		return nil
	}
	f, err := os.Open(c.RulesFile)
	if err != nil {
		return fmt.Errorf("--sso-rules: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := models.ParseSSORule(line)
		if err != nil {
			return fmt.Errorf("--sso-rules %s line %d: %w", c.RulesFile, n, err)
		}
		c.Rules = append(c.Rules, r)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("--sso-rules: %w", err)
	}
	return nil
}

// ldap is the configured directory; nil without one.
func (c *ssoConfig) ldap() (*sso.LDAP, error) {
	if c.LDAP.URL == "" {
		return nil, nil
	}
	return sso.NewLDAP(c.LDAP)
}

// ldapSyncStore is what the directory's sync needs of the store.
type ldapSyncStore interface {
	ExternalUsers(ctx context.Context, method string) ([]models.User, error)
	SyncExternal(ctx context.Context, id models.ExternalIdentity, extra []models.SSORule, now time.Time) error
	DisableExternal(ctx context.Context, method, externalID string, now time.Time) error
}

// ldapDirectory is what the sync reads of the directory (*sso.LDAP).
type ldapDirectory interface {
	Lookup(ctx context.Context, id string) (sso.Identity, error)
}

// syncLDAP reads every enabled LDAP user again: one the directory no longer finds (gone, or
// excluded by the user filter as disabled) is disabled, their sessions ended and API tokens
// revoked; the others get what their groups' rules give now. A directory that does not
// answer changes nothing.
func syncLDAP(ctx context.Context, store ldapSyncStore, dir ldapDirectory, rules []models.SSORule, now time.Time) error {
	users, err := store.ExternalUsers(ctx, models.SourceLDAP)
	if err != nil {
		return err
	}
	for _, u := range users {
		id, err := dir.Lookup(ctx, u.ExternalID)
		switch {
		case errors.Is(err, sso.ErrNoUser):
			err = store.DisableExternal(ctx, models.SourceLDAP, u.ExternalID, now)
		case err == nil:
			err = store.SyncExternal(ctx, models.ExternalIdentity{Method: models.SourceLDAP, ID: u.ExternalID, Name: id.Name, Groups: id.Groups}, rules, now)
		}
		if err != nil {
			return fmt.Errorf("ldap sync of %s: %w", u.Name, err)
		}
	}
	return nil
}

// oidc is the relying party of the configured provider; nil without one.
func (c *ssoConfig) oidc(publicURL string) *sso.OIDC {
	if c.OIDCIssuer == "" {
		return nil
	}
	return sso.NewOIDC(sso.OIDCConfig{Name: c.OIDCName, Issuer: c.OIDCIssuer, ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret,
		RedirectURL: strings.TrimSuffix(publicURL, "/") + "/login/oidc/callback", Scopes: c.OIDCScopes, GroupsClaim: c.OIDCGroupsClaim})
}

// oidcCheckStore is what the provider's check needs of the store.
type oidcCheckStore interface {
	ldapSyncStore
	SetSSORefresh(ctx context.Context, method, externalID, sealed string) error
}

// oidcProvider is what the check asks of the provider (*sso.OIDC).
type oidcProvider interface {
	Check(ctx context.Context, sealed string) (string, sso.Identity, error)
}

// checkOIDC asks the provider, with each enabled OIDC user's refresh token, whether it still
// vouches for them: one it refuses (the person disabled or removed there) is disabled, their
// sessions ended and API tokens revoked; for the others the renewed refresh token is kept
// and, when the provider sent a new ID token, its groups' rules applied. A stored token that
// no longer opens (the client secret changed) is dropped, leaving that user unchecked until
// their next sign-in. A provider that does not answer changes nothing.
func checkOIDC(ctx context.Context, store oidcCheckStore, op oidcProvider, rules []models.SSORule, now time.Time) error {
	users, err := store.ExternalUsers(ctx, models.SourceOIDC)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.SSORefresh == "" {
			continue
		}
		next, id, err := op.Check(ctx, u.SSORefresh)
		switch {
		case errors.Is(err, sso.ErrRefused):
			err = store.DisableExternal(ctx, models.SourceOIDC, u.ExternalID, now)
		case errors.Is(err, sso.ErrNotSealed):
			err = store.SetSSORefresh(ctx, models.SourceOIDC, u.ExternalID, "")
		case err == nil:
			if next != u.SSORefresh {
				err = store.SetSSORefresh(ctx, models.SourceOIDC, u.ExternalID, next)
			}
			if err == nil && id.ID == u.ExternalID {
				err = store.SyncExternal(ctx, models.ExternalIdentity{Method: models.SourceOIDC, ID: id.ID, Name: id.Name, Groups: id.Groups}, rules, now)
			}
		}
		if err != nil {
			return fmt.Errorf("oidc check of %s: %w", u.Name, err)
		}
	}
	return nil
}
