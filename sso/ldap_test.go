package sso

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-ldap/ldap/v3"
)

// testLDAP is the directory scripts/test-slapd.sh started (.ci/run starts it); the test is
// skipped without one.
func testLDAP(t *testing.T, startTLS bool) *LDAP {
	t.Helper()
	url := os.Getenv("KASHI_TEST_LDAP_URL")
	if url == "" {
		t.Skip("KASHI_TEST_LDAP_URL not set: start slapd with scripts/test-slapd.sh")
	}
	l, err := NewLDAP(LDAPConfig{URL: url, StartTLS: startTLS, CAFile: os.Getenv("KASHI_TEST_LDAP_CA"),
		BindDN: "cn=kashi,ou=system,dc=kashi,dc=test", BindPassword: "kashi-pw", BaseDN: "dc=kashi,dc=test",
		UserFilter: "(&(objectClass=inetOrgPerson)(uid=%s)(!(employeeType=disabled)))", NameAttr: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLDAPSignIn: against OpenLDAP, over StartTLS, the service account finds the person, their
// password binds, and their groups include the nested ones (bo is in ml-vision, which is in
// ml), by DN and by cn; a wrong or empty password and an unknown name are refused.
func TestLDAPSignIn(t *testing.T) {
	l := testLDAP(t, true)
	ctx := context.Background()
	id, err := l.SignIn(ctx, "bo", "pw-bo")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cn=ml-vision,ou=groups,dc=kashi,dc=test", "ml-vision", "cn=ml,ou=groups,dc=kashi,dc=test", "ml"}
	if id.ID != "uid=bo,ou=people,dc=kashi,dc=test" || id.Name != "bo" || !slices.Equal(id.Groups, want) {
		t.Errorf("SignIn(bo) = %+v, want bo in %v", id, want)
	}
	if id, err := l.SignIn(ctx, "ana", "pw-ana"); err != nil || !slices.Contains(id.Groups, "ml") || slices.Contains(id.Groups, "ml-vision") {
		t.Errorf("SignIn(ana) = %+v, %v, want ml and not ml-vision", id, err)
	}
	for name, pw := range map[string]string{"ana": "wrong", "bo": "", "nobody": "pw", "*": "pw-ana", "ana)(uid=*": "pw-ana"} {
		if _, err := l.SignIn(ctx, name, pw); !errors.Is(err, ErrRefused) {
			t.Errorf("SignIn(%q, %q) = %v, want ErrRefused", name, pw, err)
		}
	}
	plain := testLDAP(t, false)
	if _, err := plain.SignIn(ctx, "ana", "pw-ana"); err != nil {
		t.Errorf("without StartTLS: %v", err)
	}
}

// TestLDAPLookup: the sync's lookup finds a person again by their DN, and not once they are
// excluded by the filter (disabled) or gone.
func TestLDAPLookup(t *testing.T) {
	l := testLDAP(t, false)
	ctx := context.Background()
	admin, err := ldap.DialURL(os.Getenv("KASHI_TEST_LDAP_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.Bind("cn=admin,dc=kashi,dc=test", "admin-pw"); err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	rand.Read(b[:])
	uid := "t" + hex.EncodeToString(b[:])
	dn := "uid=" + uid + ",ou=people,dc=kashi,dc=test"
	add := ldap.NewAddRequest(dn, nil)
	add.Attribute("objectClass", []string{"inetOrgPerson"})
	for k, v := range map[string]string{"uid": uid, "cn": uid, "sn": uid, "userPassword": "pw"} {
		add.Attribute(k, []string{v})
	}
	if err := admin.Add(add); err != nil {
		t.Fatal(err)
	}
	if id, err := l.Lookup(ctx, dn); err != nil || id.Name != uid {
		t.Errorf("Lookup(%s) = %+v, %v", dn, id, err)
	}
	mod := ldap.NewModifyRequest(dn, nil)
	mod.Add("employeeType", []string{"disabled"})
	if err := admin.Modify(mod); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lookup(ctx, dn); !errors.Is(err, ErrNoUser) {
		t.Errorf("Lookup of a disabled person = %v, want ErrNoUser", err)
	}
	if err := admin.Del(ldap.NewDelRequest(dn, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lookup(ctx, dn); !errors.Is(err, ErrNoUser) {
		t.Errorf("Lookup of a deleted person = %v, want ErrNoUser", err)
	}
}

// TestLDAPSAndStartTLS: against OpenLDAP's ldaps:// listener and its StartTLS, a sign-in works
// with the CA that signed the server's certificate, and is refused (no bind is tried) when the
// certificate does not verify (here with the system's CAs, which did not sign it).
func TestLDAPSAndStartTLS(t *testing.T) {
	ldaps := os.Getenv("KASHI_TEST_LDAPS_URL")
	if ldaps == "" {
		t.Skip("KASHI_TEST_LDAPS_URL not set: start slapd with scripts/test-slapd.sh")
	}
	ctx := context.Background()
	for name, cfg := range map[string]LDAPConfig{
		"ldaps":    {URL: ldaps},
		"starttls": {URL: os.Getenv("KASHI_TEST_LDAP_URL"), StartTLS: true},
	} {
		cfg.BindDN, cfg.BindPassword, cfg.BaseDN = "cn=kashi,ou=system,dc=kashi,dc=test", "kashi-pw", "dc=kashi,dc=test"
		cfg.UserFilter = "(&(objectClass=inetOrgPerson)(uid=%s))"
		trusted := cfg
		trusted.CAFile = os.Getenv("KASHI_TEST_LDAP_CA")
		l, err := NewLDAP(trusted)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := l.SignIn(ctx, "ana", "pw-ana"); err != nil || !slices.Contains(id.Groups, "ml") {
			t.Errorf("%s with its CA: SignIn(ana) = %+v, %v, want ana in ml", name, id, err)
		}
		untrusted, err := NewLDAP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// go-ldap's StartTLS keeps only the text of the TLS error.
		if _, err := untrusted.SignIn(ctx, "ana", "pw-ana"); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
			t.Errorf("%s without its CA: SignIn = %v, want the certificate refused", name, err)
		}
	}
}

// TestLDAPDetectsActiveDirectory: the directory's root DSE says whether it is Active
// Directory (supportedCapabilities holds LDAP_CAP_ACTIVE_DIRECTORY_OID), read once. OpenLDAP
// is not, so its nested groups are walked (TestLDAPSignIn); a second slapd whose root DSE
// says what AD's says is taken for AD, and asked for nested groups with
// LDAP_MATCHING_RULE_IN_CHAIN. (No real AD runs here: that slapd, a real server with AD's
// root DSE, is as close as the detection gets; OpenLDAP does not implement the in-chain rule
// itself, so what AD answers to it is not tested.)
func TestLDAPDetectsActiveDirectory(t *testing.T) {
	adURL := os.Getenv("KASHI_TEST_LDAP_AD_URL")
	if adURL == "" {
		t.Skip("KASHI_TEST_LDAP_AD_URL not set: start slapd with scripts/test-slapd.sh")
	}
	for url, want := range map[string]bool{adURL: true, os.Getenv("KASHI_TEST_LDAP_URL"): false} {
		bind := "cn=admin,dc=kashi,dc=test"
		if want {
			bind = "cn=admin,dc=ad,dc=test"
		}
		l, err := NewLDAP(LDAPConfig{URL: url, BindDN: bind, BindPassword: "admin-pw", BaseDN: "dc=x", UserFilter: "(uid=%s)"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := l.conn()
		if err != nil {
			t.Fatal(err)
		}
		ad, err := l.activeDirectory(c)
		c.Close()
		if err != nil || ad != want || l.ad == nil {
			t.Errorf("activeDirectory(%s) = %v, %v, want %v, kept", url, ad, err, want)
		}
	}
}
