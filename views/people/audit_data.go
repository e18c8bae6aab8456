package people

import (
	"time"

	"kashi/phrase"
)

// AuditData is the audit log page: the filter as the URL holds it, its choices, and the
// entries it keeps, each with its changes field by field.
type AuditData struct {
	Filter AuditFilter
	// Actions and Projects are the filter's choices: the actions the log holds and the
	// projects the viewer may read the log of.
	Actions  []string
	Projects []string
	// Zone names the time zone times are shown in (the viewer's).
	Zone    string
	Entries []AuditView
	// CSV is the URL of the filtered log as CSV.
	CSV string
	// Error says why the filter was refused.
	Error string
}

// AuditFilter is the audit page's filter: who, what, which project, and days from and to
// (inclusive, in the viewer's zone), as typed.
type AuditFilter struct {
	Actor, Action, Project, From, To string
}

// AuditView is one audit entry; Subject is what it acted on, in the page's language.
type AuditView struct {
	At      time.Time
	Actor   string
	Action  string
	Project string
	Subject string
	Changes []AuditChange
}

// AuditChange is one field of an entry that changed: its name as stored, its label in the
// page's language, and its values before and after, as text.
type AuditChange struct {
	Field, Label, Before, After string
}

// auditTerm is the catalog's text of prefix+name, or name when the catalog has none.
func auditTerm(l phrase.Locale, prefix, name string) string {
	if l.Has(prefix + name) {
		return l.T(prefix + name)
	}
	return name
}
