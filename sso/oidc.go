// Package sso signs people in through the organisation's directory or team chat: an OpenID
// Connect provider (authorization code with PKCE, through coreos/go-oidc and
// golang.org/x/oauth2: discovery, the ID token's signature, issuer, audience, expiry and
// nonce; and, on a period, the refresh token's check that the provider still vouches for the
// person), LDAP or Active Directory (go-ldap), and the login of DingTalk, Feishu (Lark) and
// WeCom (their OAuth 2 / QR code flows, which also give each person's id in the chat). It
// knows nothing of Kashi's users: it says who the directory vouches for and in which groups;
// models applies the mapping rules.
package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// OIDCConfig is an OpenID provider as the configuration names it.
type OIDCConfig struct {
	// Name is what the login page's button calls the provider ("Keycloak", "Entra ID").
	Name string
	// Issuer is the provider's issuer URL; its discovery document is read from
	// Issuer/.well-known/openid-configuration.
	Issuer string
	// ClientID and ClientSecret are Kashi's client at the provider. The secret is never
	// logged.
	ClientID     string
	ClientSecret string
	// RedirectURL is Kashi's callback: PUBLIC-URL/login/oidc/callback.
	RedirectURL string
	// Scopes are asked besides openid (profile and email when none are given).
	Scopes []string
	// GroupsClaim is the ID token's (or user info's) claim listing the person's groups;
	// "groups" when empty.
	GroupsClaim string
	// HTTPClient reaches the provider; http.DefaultClient when nil.
	HTTPClient *http.Client
}

// OIDC is a relying party of one OpenID provider. Discovery runs at the first sign-in and is
// tried again after a failure, so Kashi starts while the provider is away.
type OIDC struct {
	cfg OIDCConfig
	mu  sync.Mutex
	p   *oidc.Provider
}

// NewOIDC returns a relying party of the provider cfg names.
func NewOIDC(cfg OIDCConfig) *OIDC {
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"profile", "email"}
	}
	return &OIDC{cfg: cfg}
}

// Name is the provider's name for the login page.
func (o *OIDC) Name() string { return o.cfg.Name }

func (o *OIDC) ctx(ctx context.Context) context.Context {
	if o.cfg.HTTPClient != nil {
		return oidc.ClientContext(ctx, o.cfg.HTTPClient)
	}
	return ctx
}

// provider discovers the provider once.
func (o *OIDC) provider(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.p != nil {
		return o.p, nil
	}
	p, err := oidc.NewProvider(o.ctx(ctx), o.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("sso: discover %s: %w", o.cfg.Issuer, err)
	}
	o.p = p
	return p, nil
}

func (o *OIDC) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: p.Endpoint(), Scopes: append([]string{oidc.ScopeOpenID}, o.cfg.Scopes...)}
}

// Start is a new sign-in: the random state, nonce and PKCE verifier to keep until the
// browser returns, and the provider's URL to send it to.
type Start struct {
	State, Nonce, Verifier string
	URL                    string
}

// Begin starts a sign-in.
func (o *OIDC) Begin(ctx context.Context) (Start, error) {
	p, err := o.provider(ctx)
	if err != nil {
		return Start{}, err
	}
	s := Start{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier()}
	s.URL = o.oauth(p).AuthCodeURL(s.State, oidc.Nonce(s.Nonce), oauth2.S256ChallengeOption(s.Verifier))
	return s, nil
}

// NewState is a sign-in's state: 256 random bits, URL-safe.
func NewState() string { return random() }

// random is 256 random bits, URL-safe.
func random() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Identity is who the provider vouches for.
type Identity struct {
	// ID is the issuer and subject: stable, unique across providers.
	ID     string
	Name   string
	Email  string
	Groups []string
	// Refresh is an OIDC sign-in's refresh token, sealed (oidc_check.go); "" when the
	// provider gave none.
	Refresh string
	// ChatID is the person's id in a team chat (DingTalk userid, Feishu open_id, WeCom
	// userid), for the robots to mention them; "" from a directory.
	ChatID string
}

// ErrRefused is a sign-in the provider's answer does not prove: a bad or missing ID token
// (signature, issuer, audience: issued to another client, expiry) or a nonce that is not this
// sign-in's.
var ErrRefused = errors.New("sign-in refused")

// Finish exchanges the code the browser brought back (with the sign-in's PKCE verifier) for
// tokens and returns who the ID token names, checked against the sign-in's nonce.
func (o *OIDC) Finish(ctx context.Context, code, verifier, nonce string) (Identity, error) {
	p, err := o.provider(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := o.oauth(p).Exchange(o.ctx(ctx), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Identity{}, fmt.Errorf("sso: exchange the code: %w: %w", ErrRefused, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, fmt.Errorf("sso: the provider sent no ID token: %w", ErrRefused)
	}
	id, err := o.verify(ctx, p, raw, nonce)
	if err != nil {
		return Identity{}, err
	}
	id.Refresh = o.seal(tok.RefreshToken)
	if id.Name == "" || id.Groups == nil {
		// Some providers (Keycloak by default, Azure for many groups) put the profile or the
		// groups only in user info; its subject must be the ID token's.
		if info, err := p.UserInfo(o.ctx(ctx), oauth2.StaticTokenSource(tok)); err == nil {
			var c claims
			if err := info.Claims(&c); err == nil && info.Subject == c.Subject {
				var extra map[string]any
				info.Claims(&extra)
				id.fill(c, extra[o.cfg.GroupsClaim])
			}
		}
	}
	if id.Name == "" {
		id.Name = id.Email
	}
	if id.Name == "" {
		id.Name = "user"
	}
	return id, nil
}

// claims are the ID token's and user info's claims Kashi reads.
type claims struct {
	Subject           string `json:"sub"`
	PreferredUsername string `json:"preferred_username"`
	Email             string `json:"email"`
	Nonce             string `json:"nonce"`
}

// verifierConfig checks ID tokens for this client.
func (o *OIDC) verifierConfig() *oidc.Config { return &oidc.Config{ClientID: o.cfg.ClientID} }

// verify checks the raw ID token (signature by the provider's keys, issuer, audience is this
// client, expiry) and its nonce, and reads who it names.
func (o *OIDC) verify(ctx context.Context, p *oidc.Provider, raw, nonce string) (Identity, error) {
	t, err := p.Verifier(o.verifierConfig()).Verify(o.ctx(ctx), raw)
	if err != nil {
		return Identity{}, fmt.Errorf("sso: %w: %w", ErrRefused, err)
	}
	if nonce == "" || t.Nonce != nonce {
		return Identity{}, fmt.Errorf("sso: the ID token's nonce is not this sign-in's: %w", ErrRefused)
	}
	var c claims
	var all map[string]any
	if err := t.Claims(&c); err != nil {
		return Identity{}, fmt.Errorf("sso: %w: %w", ErrRefused, err)
	}
	t.Claims(&all)
	id := Identity{ID: t.Issuer + " " + t.Subject}
	id.fill(c, all[o.cfg.GroupsClaim])
	return id, nil
}

// fill takes the name, email and groups that id lacks from c and groups.
func (id *Identity) fill(c claims, groups any) {
	if id.Name == "" {
		id.Name = c.PreferredUsername
	}
	if id.Email == "" {
		id.Email = c.Email
	}
	if id.Groups != nil {
		return
	}
	switch g := groups.(type) {
	case []any:
		id.Groups = []string{}
		for _, v := range g {
			if s, ok := v.(string); ok {
				id.Groups = append(id.Groups, strings.TrimPrefix(s, "/")) // Keycloak's full paths
			}
		}
	case string:
		id.Groups = []string{strings.TrimPrefix(g, "/")}
	}
}

// LogoutURL is where the browser ends its session at the provider (RP-initiated logout),
// coming back to after; "" when the provider offers no end_session_endpoint.
func (o *OIDC) LogoutURL(ctx context.Context, after string) string {
	p, err := o.provider(ctx)
	if err != nil {
		return ""
	}
	var meta struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if p.Claims(&meta) != nil || meta.EndSession == "" {
		return ""
	}
	q := url.Values{"client_id": {o.cfg.ClientID}, "post_logout_redirect_uri": {after}}
	sep := "?"
	if strings.Contains(meta.EndSession, "?") {
		sep = "&"
	}
	return meta.EndSession + sep + q.Encode()
}
