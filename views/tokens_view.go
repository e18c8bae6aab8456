package views

import (
	"kashi/phrase"
)

// TokenScope names an API token's scope ("read", "write") in the page's language; an
// unknown one is shown as it is.
func TokenScope(l phrase.Locale, scope string) string {
	switch scope {
	case "read":
		return l.T("tokens.scope.read")
	case "write":
		return l.T("tokens.scope.write")
	}
	return scope
}
