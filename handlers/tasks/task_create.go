package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// maxTaskBody bounds a task submission.
const maxTaskBody = 256 << 10

// TaskCreate submits a task to a project the caller runs tasks of; the owner is the caller
// (an admin may name another). With "template" the task starts from the template's fields
// and the request's own fields override them. A repeated Idempotency-Key returns the first
// task with 200 instead of 201. With ?dry_run=1 the task is checked, tried on the queue and
// priced, and nothing is stored (taskDryRun). POST /api/v1/tasks.
func (h *Handler) TaskCreate(c echo.Context) error {
	dry, err := dryRunFlag(c)
	if err != nil {
		return err
	}
	body, err := handlers.ReadJSON(c, maxTaskBody)
	if err != nil {
		return err
	}
	var req api.TaskRequest
	if err := handlers.DecodeBody(body, maxTaskBody, &req); err != nil {
		return err
	}
	var tpl models.TaskTemplate
	if req.Template != 0 {
		if tpl, req, err = h.fromTemplate(c, req.Template, body); err != nil {
			return err
		}
	}
	if err = h.canSubmit(c, req.Project); err != nil {
		return err
	}
	if req.Owner, err = owner(handlers.Who(c), req.Owner); err != nil {
		return err
	}
	nt := newTask(req, c.Request().Header.Get("Idempotency-Key"))
	nt.IdempotencyScope = handlers.Who(c).IdempotencyScope()
	nt.TemplateID, nt.TemplateVersion = tpl.ID, tpl.Version
	if dry {
		return h.taskDryRun(c, nt)
	}
	t, created, err := h.store.CreateTask(c.Request().Context(), nt, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	if !created { // a repeated Idempotency-Key: answer with the first task as stored
		row, err := h.visibleTask(c, t.ID)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, h.taskJSON(handlers.Locale(c), row))
	}
	row := models.TaskRow{Task: t, Project: req.Project}
	h.Sched.Trigger()
	return c.JSON(http.StatusCreated, h.taskJSON(handlers.Locale(c), row))
}

// owner is the owner of a task the principal submits: the principal, unless an admin names
// someone else. Naming someone else without being an admin is refused.
func owner(p *handlers.Principal, asked string) (string, error) {
	switch {
	case asked == "" || asked == p.User.Name:
		return p.User.Name, nil
	case p.Admin():
		return asked, nil
	}
	return "", echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "only admins submit for someone else", Field: "owner"})
}
