package tasks

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	tasksview "kashi/views/tasks"
)

// tasksPageSize is how many tasks one page of the tasks page lists.
const tasksPageSize = 50

// TasksPage lists the tasks the caller sees, waiting, running and ended, newest first, with
// filters (mine, project, state, spec, submit dates) and pages. GET /tasks.
func (h *Handler) TasksPage(c echo.Context) error {
	now := h.Now().In(h.Loc())
	q := c.QueryParams()
	state, err := stateParam(c)
	if err != nil {
		return err
	}
	d := tasksview.TaskListData{Now: now, Page: 1, Filter: tasksview.TaskListFilter{Mine: q.Get("mine") != "", Project: q.Get("project"),
		State: state, Spec: q.Get("spec"), From: q.Get("from"), To: q.Get("to")}}
	f := models.TaskFilter{Project: d.Filter.Project, State: string(d.Filter.State), Spec: d.Filter.Spec, ProjectIDs: handlers.VisibleProjects(handlers.Who(c)),
		Limit: tasksPageSize + 1}
	d.InNoProject = f.ProjectIDs != nil && len(f.ProjectIDs) == 0
	if d.Filter.Mine {
		f.Owner = handlers.Who(c).User.Name
	}
	if f.From, err = dateParam("from", d.Filter.From, now.Location()); err != nil {
		return err
	}
	if f.To, err = dateParam("to", d.Filter.To, now.Location()); err != nil {
		return err
	}
	if !f.To.IsZero() {
		f.To = f.To.AddDate(0, 0, 1) // the last day is included
	}
	if v := q.Get("page"); v != "" {
		if d.Page, err = strconv.Atoi(v); err != nil || d.Page < 1 || d.Page > 10000 {
			return handlers.BadRequest("page", "page must be a whole number from 1 to 10000")
		}
	}
	f.Offset = (d.Page - 1) * tasksPageSize
	ctx := c.Request().Context()
	rows, err := h.store.Tasks(ctx, f)
	if err != nil {
		return err
	}
	if d.More = len(rows) > tasksPageSize; d.More {
		rows = rows[:tasksPageSize]
	}
	for _, r := range rows {
		v := taskView(r)
		v.Command = nil
		d.Rows = append(d.Rows, v)
	}
	projects, err := h.store.Projects(ctx)
	if err != nil {
		return err
	}
	for _, p := range projects {
		if handlers.Who(c).CanSee(p.ID) {
			d.Options.Projects = append(d.Options.Projects, p.Name)
		}
	}
	_, specs, _, err := h.store.BoardOptions(ctx)
	if err != nil {
		return err
	}
	d.Options.Specs, d.Options.States = specs, api.TaskStates()
	return handlers.Render(c, http.StatusOK, tasksview.Tasks(handlers.Locale(c), d))
}

// dateParam parses a yyyy-mm-dd query parameter as the start of that day in loc; "" is zero.
func dateParam(name, v string, loc *time.Location) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(time.DateOnly, v, loc)
	if err != nil {
		return t, handlers.BadRequest(name, name+" must be a date, yyyy-mm-dd")
	}
	return t, nil
}
