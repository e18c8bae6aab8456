package sso

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-ldap/ldap/v3"
)

// LDAPConfig is an LDAP directory or Active Directory as the configuration names it.
type LDAPConfig struct {
	// URL is ldap://HOST:389 or ldaps://HOST:636.
	URL string
	// StartTLS upgrades an ldap:// connection before anything is sent.
	StartTLS bool
	// CAFile holds the PEM certificates that sign the server's; the system's when empty.
	CAFile string
	// BindDN and BindPassword are the service account that searches; the password is never
	// logged.
	BindDN, BindPassword string
	// BaseDN is where people and groups are searched.
	BaseDN string
	// UserFilter finds a person by the name they type, %s standing for it (escaped):
	// (&(objectClass=inetOrgPerson)(uid=%s)), AD: (&(objectClass=user)(sAMAccountName=%s)).
	// A person it no longer finds (left, or excluded as disabled) is disabled at the next
	// sync.
	UserFilter string
	// NameAttr is the attribute that holds that name (uid, sAMAccountName).
	NameAttr string
	// Timeout bounds each connection's dial and requests; 10 s when 0.
	Timeout time.Duration
}

// LDAP signs people in against a directory and reads who is in it.
type LDAP struct {
	cfg LDAPConfig
	tls *tls.Config
	// ad says whether the directory is Active Directory, read from its root DSE once
	// (nil until then): AD is asked for nested groups at once (LDAP_MATCHING_RULE_IN_CHAIN),
	// any other directory has its groups walked up, group by group.
	mu sync.Mutex
	ad *bool
}

// NewLDAP returns the directory cfg names; it reads the CA file.
func NewLDAP(cfg LDAPConfig) (*LDAP, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.NameAttr == "" {
		cfg.NameAttr = "uid"
	}
	if !strings.Contains(cfg.UserFilter, "%s") {
		return nil, fmt.Errorf("sso: the LDAP user filter %q has no %%s for the name", cfg.UserFilter)
	}
	u := strings.TrimPrefix(strings.TrimPrefix(cfg.URL, "ldaps://"), "ldap://")
	host, _, _ := strings.Cut(u, ":")
	t := &tls.Config{ServerName: strings.TrimSuffix(host, "/"), MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("sso: LDAP CA: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("sso: LDAP CA %s holds no PEM certificate", cfg.CAFile)
		}
	}
	return &LDAP{cfg: cfg, tls: t}, nil
}

// conn dials the directory (TLS as configured) and binds as the service account.
func (l *LDAP) conn() (*ldap.Conn, error) {
	c, err := ldap.DialURL(l.cfg.URL, ldap.DialWithTLSConfig(l.tls), ldap.DialWithDialer(&net.Dialer{Timeout: l.cfg.Timeout}))
	if err != nil {
		return nil, fmt.Errorf("sso: dial %s: %w", l.cfg.URL, err)
	}
	c.SetTimeout(l.cfg.Timeout)
	if l.cfg.StartTLS {
		if err := c.StartTLS(l.tls); err != nil {
			c.Close()
			return nil, fmt.Errorf("sso: StartTLS with %s: %w", l.cfg.URL, err)
		}
	}
	if err := c.Bind(l.cfg.BindDN, l.cfg.BindPassword); err != nil {
		c.Close()
		return nil, fmt.Errorf("sso: bind as the service account: %w", err)
	}
	return c, nil
}

// ErrNoUser is a name the directory's user filter does not find (or finds twice).
var ErrNoUser = errors.New("no such directory user")

// SignIn checks name and password against the directory: the service account finds the
// person by the user filter, then binds as them with the password. It returns who they are
// and their groups; a wrong password or unknown name is ErrRefused.
func (l *LDAP) SignIn(ctx context.Context, name, password string) (Identity, error) {
	if password == "" { // an empty password would be an unauthenticated bind, which succeeds
		return Identity{}, fmt.Errorf("sso: empty password: %w", ErrRefused)
	}
	c, err := l.conn()
	if err != nil {
		return Identity{}, err
	}
	defer c.Close()
	e, err := l.find(c, fmt.Sprintf(l.cfg.UserFilter, ldap.EscapeFilter(name)), l.cfg.BaseDN, ldap.ScopeWholeSubtree)
	if errors.Is(err, ErrNoUser) {
		return Identity{}, fmt.Errorf("sso: %w: %w", ErrRefused, err)
	} else if err != nil {
		return Identity{}, err
	}
	if err := c.Bind(e.DN, password); err != nil {
		return Identity{}, fmt.Errorf("sso: bind as %s: %w: %w", e.DN, ErrRefused, err)
	}
	if err := c.Bind(l.cfg.BindDN, l.cfg.BindPassword); err != nil {
		return Identity{}, fmt.Errorf("sso: bind again as the service account: %w", err)
	}
	return l.identity(c, e)
}

// Lookup reads the person with the directory id (DN) id again, as the user filter finds
// them; ErrNoUser when it no longer does.
func (l *LDAP) Lookup(ctx context.Context, id string) (Identity, error) {
	c, err := l.conn()
	if err != nil {
		return Identity{}, err
	}
	defer c.Close()
	e, err := l.find(c, fmt.Sprintf(l.cfg.UserFilter, "*"), id, ldap.ScopeBaseObject)
	var le *ldap.Error
	if errors.As(err, &le) && le.ResultCode == ldap.LDAPResultNoSuchObject {
		return Identity{}, fmt.Errorf("sso: %s: %w", id, ErrNoUser)
	}
	if err != nil {
		return Identity{}, err
	}
	return l.identity(c, e)
}

// find returns the one entry filter finds under base.
func (l *LDAP) find(c *ldap.Conn, filter, base string, scope int) (*ldap.Entry, error) {
	res, err := c.Search(ldap.NewSearchRequest(base, scope, ldap.NeverDerefAliases, 2, int(l.cfg.Timeout/time.Second), false,
		filter, []string{"dn", l.cfg.NameAttr, "mail"}, nil))
	if err != nil {
		return nil, err
	}
	if len(res.Entries) != 1 {
		return nil, fmt.Errorf("sso: %d entries for %s: %w", len(res.Entries), filter, ErrNoUser)
	}
	return res.Entries[0], nil
}

// identity is the person of entry e with their groups, nested ones included: each group
// both by DN and by its cn, so a rule may name it either way.
func (l *LDAP) identity(c *ldap.Conn, e *ldap.Entry) (Identity, error) {
	id := Identity{ID: e.DN, Name: e.GetAttributeValue(l.cfg.NameAttr), Email: e.GetAttributeValue("mail"), Groups: []string{}}
	ad, err := l.activeDirectory(c)
	if err != nil {
		return Identity{}, err
	}
	var groups []*ldap.Entry
	if ad {
		// 1.2.840.113556.1.4.1941: Active Directory walks the chain of memberships itself.
		res, err := c.Search(ldap.NewSearchRequest(l.cfg.BaseDN, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 0, 0, false,
			"(member:1.2.840.113556.1.4.1941:="+ldap.EscapeFilter(e.DN)+")", []string{"cn"}, nil))
		if err != nil {
			return Identity{}, fmt.Errorf("sso: groups of %s: %w", e.DN, err)
		}
		groups = res.Entries
	} else {
		seen := map[string]bool{}
		for todo := []string{e.DN}; len(todo) > 0; {
			dn := todo[0]
			todo = todo[1:]
			res, err := c.Search(ldap.NewSearchRequest(l.cfg.BaseDN, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 0, 0, false,
				"(|(member="+ldap.EscapeFilter(dn)+")(uniqueMember="+ldap.EscapeFilter(dn)+"))", []string{"cn"}, nil))
			if err != nil {
				return Identity{}, fmt.Errorf("sso: groups of %s: %w", dn, err)
			}
			for _, g := range res.Entries {
				if key := strings.ToLower(g.DN); !seen[key] && len(seen) < maxGroups {
					seen[key] = true
					groups = append(groups, g)
					todo = append(todo, g.DN)
				}
			}
		}
	}
	for _, g := range groups {
		id.Groups = append(id.Groups, g.DN)
		if cn := g.GetAttributeValue("cn"); cn != "" {
			id.Groups = append(id.Groups, cn)
		}
	}
	return id, nil
}

// adCapability is LDAP_CAP_ACTIVE_DIRECTORY_OID: Active Directory (and only it) lists it
// among its root DSE's supportedCapabilities.
const adCapability = "1.2.840.113556.1.4.800"

// activeDirectory reads once whether the directory is Active Directory, from its root DSE.
func (l *LDAP) activeDirectory(c *ldap.Conn) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ad != nil {
		return *l.ad, nil
	}
	res, err := c.Search(ldap.NewSearchRequest("", ldap.ScopeBaseObject, ldap.NeverDerefAliases, 1, int(l.cfg.Timeout/time.Second), false,
		"(objectClass=*)", []string{"supportedCapabilities"}, nil))
	if err != nil {
		return false, fmt.Errorf("sso: read the directory's root DSE: %w", err)
	}
	ad := len(res.Entries) == 1 && slices.Contains(res.Entries[0].GetAttributeValues("supportedCapabilities"), adCapability)
	l.ad = &ad
	return ad, nil
}

// maxGroups bounds the groups one person's walk reads (a cycle of groups ends at its start).
const maxGroups = 1000
