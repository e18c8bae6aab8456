package projects

import (
	"strconv"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
)

// projectAction is the URL of a project's admin form.
func projectAction(id int64, what string) templ.SafeURL {
	return templ.SafeURL("/projects/" + strconv.FormatInt(id, 10) + "/" + what)
}

// tagsOrNone shows a project's tags, or says it has none.
func tagsOrNone(l phrase.Locale, tags string) string {
	if tags == "" {
		return l.T("padmin.no_tags")
	}
	return tags
}

// archiveConfirm asks before archiving a project or taking it back into use.
func archiveConfirm(l phrase.Locale, project string, archived bool) string {
	if archived {
		return l.T("padmin.unarchive_confirm", project)
	}
	return l.T("padmin.archive_confirm", project)
}

// quotaError is the card's error when it belongs to the quota form q.
func quotaError(a *views.ProjectAdmin, q views.QuotaForm) string {
	if q.New {
		return a.AdminError("quota:new")
	}
	return a.AdminError("quota:" + q.Spec)
}

// quotaField is the field the card's error names when the error belongs to the quota form q
// (only that form's input is marked invalid); "" otherwise.
func quotaField(a *views.ProjectAdmin, q views.QuotaForm) string {
	if quotaError(a, q) == "" {
		return ""
	}
	return a.Field
}

// ProjectCreatedNotice confirms a project was added.
func ProjectCreatedNotice(l phrase.Locale, name string) string { return l.T("padmin.created", name) }

// ProjectSavedNotice confirms a change on a project's card.
func ProjectSavedNotice(l phrase.Locale, name string) string { return l.T("padmin.saved", name) }

// quotaOpen opens the quota form that was refused.
func quotaOpen(a *views.ProjectAdmin, q views.QuotaForm) bool { return quotaError(a, q) != "" }
