package people

import (
	"net/url"

	"github.com/a-h/templ"

	"kashi/phrase"
)

// userAction is the target of a form acting on one user: "state", "password" or
// "unix-account".
func userAction(name, what string) templ.SafeURL {
	return templ.SafeURL("/people/" + url.PathEscape(name) + "/" + what)
}

// UserNotice confirms an action on the people page: "created", "disabled", "enabled",
// "reset" or "account" (a Unix account set), for the named user.
func UserNotice(l phrase.Locale, what, name string) string {
	switch what {
	case "created":
		return l.T("users.created", name)
	case "disabled":
		return l.T("users.disabled_notice", name)
	case "enabled":
		return l.T("users.enabled_notice", name)
	case "reset":
		return l.T("users.reset_notice", name)
	case "account":
		return l.T("users.unix_account_notice", name)
	}
	return ""
}

// PasswordChangedNotice confirms the viewer's own new password.
func PasswordChangedNotice(l phrase.Locale) string { return l.T("account.changed") }

// ChatIDsSavedNotice says the user's chat ids are saved.
func ChatIDsSavedNotice(l phrase.Locale) string { return l.T("account.chat_saved") }

// PasswordThrottled says the password form is refused for retryIn after too many wrong
// current passwords.
func PasswordThrottled(l phrase.Locale, retryIn string) string {
	return l.T("account.throttled", retryIn)
}

// unixAccountField is the refused field when it is the named user's Unix account, else "".
func unixAccountField(d UsersData, name string) string {
	if d.Target == name {
		return d.Field
	}
	return ""
}
