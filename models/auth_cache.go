package models

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// authTTL bounds how long this process trusts an API token, its user and a user's project
// roles without reading them again. Any write to the tables they are read from in this
// process (a token revoked, a member removed, a user disabled or given another role)
// forgets them all before the write returns; a write on another replica takes effect here
// within authTTL (docs/decisions.md, "Who may do what, cached").
const authTTL = 5 * time.Second

// maxAuthEntries bounds each of the cache's maps: past it, a map starts over.
const maxAuthEntries = 10000

// authTables are the tables who may do what is read from. A write to one forgets the cache:
// "projects" is among them because deleting a project deletes its members by cascade. Quiet
// writes (changes.go) are not counted: the one that touches these tables records a token's
// last use, which decides nothing.
var authTables = []string{"users", "api_tokens", "project_members", "projects"}

// authCache remembers verified API tokens with their users, and users' project roles: a
// script's submit read both before its own write, half the submit's CPU.
type authCache struct {
	mu  sync.Mutex
	gen uint64 // counts forgets, so that a read begun before one is not kept
	// tokens by token hash; roles by user id. Unknown tokens are never kept.
	tokens map[string]authEntry[tokenOwner]
	roles  map[int64]authEntry[map[int64]string]
}

type authEntry[V any] struct {
	v  V
	at time.Time
}

// tokenOwner is a live token with its user.
type tokenOwner struct {
	user  User
	token APIToken
}

// authLookup returns m's entry for k if it was read within authTTL, and the generation a
// read of it from the database must be kept with.
func authLookup[K comparable, V any](c *authCache, m *map[K]authEntry[V], k K) (V, bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := (*m)[k]
	if !ok || time.Since(e.at) >= authTTL {
		var zero V
		return zero, false, c.gen
	}
	return e.v, true, c.gen
}

// authKeep remembers v, read from the database at generation gen, unless the cache forgot
// since.
func authKeep[K comparable, V any](c *authCache, m *map[K]authEntry[V], k K, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if *m == nil || len(*m) >= maxAuthEntries {
		*m = make(map[K]authEntry[V])
	}
	(*m)[k] = authEntry[V]{v: v, at: time.Now()}
}

// forget drops everything after a write to an auth table.
func (c *authCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.tokens, c.roles = nil, nil
}

// used records a cached token's last use.
func (c *authCache) used(hash string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.tokens[hash]; ok {
		e.v.token.LastUsedAt = &at
		c.tokens[hash] = e
	}
}

// touchesAuth reports whether a write statement may change who may do what: it names one of
// authTables (its table, or its SQL for a raw statement). Quiet writes are left out by its
// caller (writeForgets).
func touchesAuth(st *gorm.Statement) bool {
	text := st.Table
	if text == "" {
		text = st.SQL.String()
	}
	for _, t := range authTables {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// CallerRoles returns the user's project roles by project id as a request's caller needs
// them: remembered for authTTL and forgotten on any change to memberships, users or
// projects in this process. Memberships reads them as they are now.
func (s *Store) CallerRoles(ctx context.Context, userID int64) (map[int64]string, error) {
	roles, ok, gen := authLookup(&s.auth, &s.auth.roles, userID)
	if ok {
		return maps.Clone(roles), nil
	}
	roles, err := s.Memberships(ctx, userID)
	if err != nil {
		return nil, err
	}
	authKeep(&s.auth, &s.auth.roles, userID, maps.Clone(roles), gen)
	return roles, nil
}
