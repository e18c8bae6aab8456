package sso

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/oauth2"
)

// A provider tells a relying party nothing when it disables a person (short of SCIM or
// back-channel logout, which few offer). What it does do is refuse that person's refresh
// token: so Kashi keeps each OIDC user's latest refresh token (sealed, below) and asks the
// provider with it on a period (Check). A refusal (invalid_grant) means the provider no
// longer vouches for the person; the caller disables them, ending their sessions and API
// tokens. Providers issue refresh tokens for the offline_access scope (Keycloak, Entra ID,
// zitadel) or by default; a refresh token each check renews does not idle out.

// Check asks the provider for new tokens with the sealed refresh token of a user's last
// sign-in or check. It returns the new refresh token sealed (the same when the provider
// keeps it) and, when the provider sent a new ID token, who it names with their groups now
// (Identity.ID is "" otherwise). A refused refresh token is ErrRefused; a provider that does
// not answer is another error.
func (o *OIDC) Check(ctx context.Context, sealed string) (string, Identity, error) {
	refresh, err := o.open(sealed)
	if err != nil {
		return "", Identity{}, err
	}
	p, err := o.provider(ctx)
	if err != nil {
		return "", Identity{}, err
	}
	tok, err := o.oauth(p).TokenSource(o.ctx(ctx), &oauth2.Token{RefreshToken: refresh}).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		return "", Identity{}, fmt.Errorf("sso: the provider refused the refresh token: %w: %s", ErrRefused, re.ErrorDescription)
	} else if err != nil {
		return "", Identity{}, fmt.Errorf("sso: refresh at %s: %w", o.cfg.Issuer, err)
	}
	next := sealed
	if tok.RefreshToken != "" && tok.RefreshToken != refresh {
		next = o.seal(tok.RefreshToken)
	}
	var id Identity
	if raw, _ := tok.Extra("id_token").(string); raw != "" {
		// A refreshed ID token carries no nonce; its signature, issuer, audience and expiry
		// are checked all the same.
		t, err := p.Verifier(o.verifierConfig()).Verify(o.ctx(ctx), raw)
		if err != nil {
			return "", Identity{}, fmt.Errorf("sso: the refreshed ID token: %w", err)
		}
		var c claims
		var all map[string]any
		t.Claims(&c)
		t.Claims(&all)
		id = Identity{ID: t.Issuer + " " + t.Subject}
		id.fill(c, all[o.cfg.GroupsClaim])
	}
	return next, id, nil
}

// ErrNotSealed is a stored refresh token that does not open: not one Kashi sealed, or sealed
// under another client secret.
var ErrNotSealed = errors.New("sso: the stored refresh token does not open")

// seal encrypts a refresh token with a key made from the client secret (AES-GCM), so the
// database alone does not hold a usable one; "" for none.
func (o *OIDC) seal(refresh string) string {
	if refresh == "" {
		return ""
	}
	nonce := make([]byte, 12)
	rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(o.aead().Seal(nonce, nonce, []byte(refresh), nil))
}

// open decrypts what seal made; a token sealed under another secret does not open.
func (o *OIDC) open(sealed string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(b) < 12 {
		return "", ErrNotSealed
	}
	plain, err := o.aead().Open(nil, b[:12], b[12:], nil)
	if err != nil {
		return "", ErrNotSealed
	}
	return string(plain), nil
}

func (o *OIDC) aead() cipher.AEAD {
	key := sha256.Sum256([]byte("kashi oidc refresh token\x00" + o.cfg.ClientID + "\x00" + o.cfg.ClientSecret))
	block, _ := aes.NewCipher(key[:])
	g, _ := cipher.NewGCM(block)
	return g
}
