package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

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

// oidc is the relying party of the configured provider; nil without one.
func (c *ssoConfig) oidc(publicURL string) *sso.OIDC {
	if c.OIDCIssuer == "" {
		return nil
	}
	return sso.NewOIDC(sso.OIDCConfig{Name: c.OIDCName, Issuer: c.OIDCIssuer, ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret,
		RedirectURL: strings.TrimSuffix(publicURL, "/") + "/login/oidc/callback", Scopes: c.OIDCScopes, GroupsClaim: c.OIDCGroupsClaim})
}
