// Links to Kashi's pages, for the areas' pages to point at one another.

package views

import (
	"net/url"
	"strconv"

	"github.com/a-h/templ"
)

// NodeURL is the page of node id.
func NodeURL(id int64) string { return "/nodes/" + strconv.FormatInt(id, 10) }

// GPUURL is the page of GPU id: ids, not UUIDs, since only admins see a card's UUID.
func GPUURL(id int64) string { return "/gpus/" + strconv.FormatInt(id, 10) }

// BoardURL is the compact board, filtered to pool when one is named.
func BoardURL(pool string) string {
	if pool == "" {
		return "/?view=grid"
	}
	return "/?view=grid&pool=" + url.QueryEscape(pool)
}

// ServiceURL is the page of a service: the page of the task that runs it.
func ServiceURL(id int64) templ.SafeURL { return templ.SafeURL(TaskURL(id)) }

// TemplatesURL is the path of a project's templates page.
func TemplatesURL(projectID int64) templ.SafeURL {
	return templ.SafeURL("/projects/" + strconv.FormatInt(projectID, 10) + "/templates")
}

// TemplateURL is the path of a template's page.
func TemplateURL(id int64) templ.SafeURL {
	return templ.SafeURL("/templates/" + strconv.FormatInt(id, 10))
}

// ChangeURL is the before/after page of version of pool's settings.
func ChangeURL(pool string, version int) string {
	return "/pools/" + url.PathEscape(pool) + "/changes/" + strconv.Itoa(version)
}

// PriceChangeURL is the page of the price list's row id as a change.
func PriceChangeURL(id int64) string { return "/prices/changes/" + strconv.FormatInt(id, 10) }

// QuotaChangeURL is the page of the change of project's quota that audit entry id records.
func QuotaChangeURL(project, id int64) string {
	return "/projects/" + strconv.FormatInt(project, 10) + "/quota-changes/" + strconv.FormatInt(id, 10)
}

// ReclaimChangeURL is the page of the change of project's idle-reclaim override that audit
// entry id records.
func ReclaimChangeURL(project, id int64) string {
	return "/projects/" + strconv.FormatInt(project, 10) + "/reclaim-changes/" + strconv.FormatInt(id, 10)
}

// TaskURL is the path of a task's page.
func TaskURL(id int64) string { return "/tasks/" + strconv.FormatInt(id, 10) }

// PipelineURL is a pipeline's page.
func PipelineURL(id int64) string { return "/pipelines/" + strconv.FormatInt(id, 10) }

// TrialURL is the path of a trial's page.
func TrialURL(id int64) templ.SafeURL { return templ.SafeURL("/trials/" + strconv.FormatInt(id, 10)) }

// WeekURL is the report of a week.
func WeekURL(week string) templ.SafeURL { return templ.SafeURL("/reports?week=" + week) }
