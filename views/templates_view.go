package views

import (
	"strconv"

	"github.com/a-h/templ"
)

// TemplatesURL is the path of a project's templates page.
func TemplatesURL(projectID int64) templ.SafeURL {
	return templ.SafeURL("/projects/" + strconv.FormatInt(projectID, 10) + "/templates")
}

// TemplateURL is the path of a template's page.
func TemplateURL(id int64) templ.SafeURL {
	return templ.SafeURL("/templates/" + strconv.FormatInt(id, 10))
}
