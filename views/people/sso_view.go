package people

import (
	"kashi/phrase"
	"kashi/views"
)

// ssoMethod names a directory.
func ssoMethod(l phrase.Locale, m string) string {
	if m == "ldap" {
		return l.T("sso.method.ldap")
	}
	return l.T("sso.method.oidc")
}

// ssoRole names a rule's role: a project's (lead, member) or a site's.
func ssoRole(l phrase.Locale, r string) string {
	switch r {
	case "lead":
		return l.T("role.lead")
	case "member":
		return l.T("role.member")
	}
	return views.RoleLabel(l, r)
}
