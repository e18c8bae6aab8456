package sso

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"kashi/sso/ssotest"
)

const callback = "http://127.0.0.1:1/login/oidc/callback"

// startOP runs a real provider with two clients, kashi and other, and the user ana in ml.
func startOP(t *testing.T) *ssotest.OP {
	return ssotest.Start(t, []ssotest.Client{{ID: "kashi", Secret: "s-kashi", RedirectURL: callback},
		{ID: "other", Secret: "s-other", RedirectURL: callback}},
		ssotest.User{ID: "u-ana", Username: "ana@example.org", Password: "pw-ana", Email: "ana@example.org", Groups: []string{"ml", "/finance"}})
}

func rp(op *ssotest.OP, client, secret string) *OIDC {
	return NewOIDC(OIDCConfig{Issuer: op.Issuer, ClientID: client, ClientSecret: secret, RedirectURL: callback,
		Scopes: []string{"profile", "email", "groups"}})
}

// signIn runs the code flow of o at the provider as ana and returns the sign-in and the code.
func signIn(t *testing.T, op *ssotest.OP, o *OIDC) (Start, string) {
	t.Helper()
	s, err := o.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"code_challenge_method=S256", "code_challenge=", "nonce=" + s.Nonce, "state=" + s.State} {
		if !strings.Contains(s.URL, want) {
			t.Errorf("the authorization URL %s lacks %s", s.URL, want)
		}
	}
	back, err := op.SignIn(http.DefaultClient, s.URL, "ana@example.org", "pw-ana")
	if err != nil {
		t.Fatal(err)
	}
	if back.Query().Get("state") != s.State {
		t.Fatalf("the provider came back with state %q, want %q", back.Query().Get("state"), s.State)
	}
	return s, back.Query().Get("code")
}

// TestOIDCCodeFlow: the whole code flow with PKCE against a real provider names the person,
// with the issuer and subject as id and the groups of the ID token (Keycloak's leading '/'
// dropped).
func TestOIDCCodeFlow(t *testing.T) {
	op := startOP(t)
	o := rp(op, "kashi", "s-kashi")
	s, code := signIn(t, op, o)
	id, err := o.Finish(context.Background(), code, s.Verifier, s.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	if id.ID != op.Issuer+" u-ana" || id.Name != "ana@example.org" || !slices.Equal(id.Groups, []string{"ml", "finance"}) {
		t.Errorf("Finish = %+v", id)
	}
	if got := o.LogoutURL(context.Background(), "http://kashi/login"); !strings.HasPrefix(got, op.Issuer+"/end_session?") ||
		!strings.Contains(got, "client_id=kashi") {
		t.Errorf("LogoutURL = %q, want the provider's end_session with the client", got)
	}
}

// TestOIDCRefusesWhatIsNotThisSignIns: a wrong PKCE verifier, another sign-in's nonce, a code
// used twice and an ID token the provider issued to another client are refused.
func TestOIDCRefusesWhatIsNotThisSignIns(t *testing.T) {
	op := startOP(t)
	ctx := context.Background()
	o := rp(op, "kashi", "s-kashi")

	s, code := signIn(t, op, o)
	if _, err := o.Finish(ctx, code, "not-the-verifier-"+s.Verifier, s.Nonce); !errors.Is(err, ErrRefused) {
		t.Errorf("a wrong PKCE verifier = %v, want ErrRefused", err)
	}
	s, code = signIn(t, op, o)
	if _, err := o.Finish(ctx, code, s.Verifier, "another-sign-ins-nonce"); !errors.Is(err, ErrRefused) {
		t.Errorf("another nonce = %v, want ErrRefused", err)
	}
	if _, err := o.Finish(ctx, code, s.Verifier, s.Nonce); !errors.Is(err, ErrRefused) {
		t.Errorf("a code used twice = %v, want ErrRefused", err)
	}

	// A real ID token the provider issued to the client "other", for a sign-in with the
	// same nonce.
	other := rp(op, "other", "s-other")
	s, code = signIn(t, op, other)
	p, _ := other.provider(ctx)
	tok, err := other.oauth(p).Exchange(ctx, code, oauth2VerifierOption(s.Verifier))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if _, err := other.verify(ctx, p, raw, s.Nonce); err != nil {
		t.Fatalf("the token is good for its own client: %v", err)
	}
	if _, err := o.verify(ctx, p, raw, s.Nonce); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "audience") {
		t.Errorf("another client's ID token = %v, want refused for its audience", err)
	}
}

func oauth2VerifierOption(v string) oauth2.AuthCodeOption { return oauth2.VerifierOption(v) }
