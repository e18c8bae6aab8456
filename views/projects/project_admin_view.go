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

// quotaProblems are the card's problems when they belong to the quota form q.
func quotaProblems(a *views.ProjectAdmin, q views.QuotaForm) views.Problems {
	if q.New {
		return a.AdminProblems("quota:new")
	}
	return a.AdminProblems("quota:" + q.Spec)
}

// ProjectCreatedNotice confirms a project was added.
func ProjectCreatedNotice(l phrase.Locale, name string) string { return l.T("padmin.created", name) }

// ProjectSavedNotice confirms a change on a project's card.
func ProjectSavedNotice(l phrase.Locale, name string) string { return l.T("padmin.saved", name) }

// quotaOpen opens the quota form that was refused.
func quotaOpen(a *views.ProjectAdmin, q views.QuotaForm) bool { return len(quotaProblems(a, q)) > 0 }
