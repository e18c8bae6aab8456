// Package ssotest runs a real OpenID provider on loopback for tests: zitadel/oidc's op
// package with its example storage and login page, whose ID tokens carry each user's
// groups (changeable while it runs) in a "groups" claim. It also drives its login page
// without a browser.
package ssotest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// User is a person the provider knows.
type User struct {
	ID, Username, Password, Email string
	Groups                        []string
	// Disabled refuses the user's refresh tokens (invalid_grant), as providers do for a
	// person disabled there.
	Disabled bool
}

// Client is a relying party registered at the provider.
type Client struct {
	ID, Secret  string
	RedirectURL string
}

// OP is a running OpenID provider.
type OP struct {
	// Issuer is its issuer URL (http://127.0.0.1:PORT).
	Issuer string
	mu     sync.Mutex
	users  map[string]*User
}

// Start runs a provider for clients and users until the test ends.
func Start(tb testing.TB, clients []Client, users ...User) *OP {
	tb.Helper()
	o := &OP{users: map[string]*User{}}
	for _, u := range users {
		o.users[u.ID] = &u
	}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	tb.Cleanup(srv.Close)
	o.Issuer = srv.URL
	cs := map[string]*storage.Client{}
	for _, c := range clients {
		cs[c.ID] = storage.WebClient(c.ID, c.Secret, c.RedirectURL)
	}
	h = exampleop.SetupServer(o.Issuer, groupStore{storage.NewStorageWithClients(userStore{o}, cs), o}, nil, false)
	return o
}

// SetGroups changes the groups of the user with id: the next ID token carries them.
func (o *OP) SetGroups(id string, groups ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.users[id].Groups = groups
}

// Disable disables the user with id: the provider refuses their refresh tokens.
func (o *OP) Disable(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.users[id].Disabled = true
}

// userStore is the example storage's view of the provider's users.
type userStore struct{ o *OP }

func (s userStore) GetUserByID(id string) *storage.User {
	s.o.mu.Lock()
	defer s.o.mu.Unlock()
	if u, ok := s.o.users[id]; ok {
		return &storage.User{ID: u.ID, Username: u.Username, Password: u.Password, Email: u.Email, EmailVerified: true}
	}
	return nil
}

func (s userStore) GetUserByUsername(name string) *storage.User {
	s.o.mu.Lock()
	id := ""
	for _, u := range s.o.users {
		if u.Username == name {
			id = u.ID
		}
	}
	s.o.mu.Unlock()
	return s.GetUserByID(id)
}

func (userStore) ExampleClientID() string { return storage.ServiceUserID }

// groupStore puts the user's name, email and groups in every ID token, as providers do with
// a groups mapper (Keycloak) or groups claim (Entra ID).
type groupStore struct {
	*storage.Storage
	o *OP
}

func (s groupStore) SetUserinfoFromRequest(ctx context.Context, ui *oidc.UserInfo, req op.IDTokenRequest, _ []string) error {
	return s.fill(ui, req.GetSubject())
}

// TokenRequestByRefreshToken refuses a disabled user's refresh token, as Keycloak does
// ("User disabled") and zitadel ("user not active"); the op package answers invalid_grant.
func (s groupStore) TokenRequestByRefreshToken(ctx context.Context, refreshToken string) (op.RefreshTokenRequest, error) {
	req, err := s.Storage.TokenRequestByRefreshToken(ctx, refreshToken)
	if err != nil {
		return nil, err
	}
	s.o.mu.Lock()
	defer s.o.mu.Unlock()
	if u, ok := s.o.users[req.GetSubject()]; !ok || u.Disabled {
		return nil, fmt.Errorf("ssotest: user %q is not active", req.GetSubject())
	}
	return req, nil
}

func (s groupStore) fill(ui *oidc.UserInfo, id string) error {
	s.o.mu.Lock()
	defer s.o.mu.Unlock()
	u, ok := s.o.users[id]
	if !ok {
		return fmt.Errorf("ssotest: no user %q", id)
	}
	ui.Subject, ui.PreferredUsername, ui.Email = u.ID, u.Username, u.Email
	ui.AppendClaims("groups", append([]string{}, u.Groups...))
	return nil
}

// SignIn follows authURL (a relying party's sign-in at the provider) with c, signs in at the
// provider's login page as user, and returns where the provider sends the browser back (the
// relying party's callback with code and state), without following it.
func (o *OP) SignIn(c *http.Client, authURL, user, password string) (*url.URL, error) {
	nc := *c
	nc.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if !strings.HasPrefix(r.URL.String(), o.Issuer) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	resp, err := nc.Get(authURL)
	if err != nil {
		return nil, err
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("ssotest: no login form at %s (%d): %.300s", resp.Request.URL, resp.StatusCode, page)
	}
	resp, err = nc.PostForm(o.Issuer+"/login/username", url.Values{"id": {string(m[1])}, "username": {user}, "password": {password}})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("ssotest: login as %s: %s", user, resp.Status)
	}
	return resp.Location()
}
