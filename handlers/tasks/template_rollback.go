package tasks

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	tasksview "kashi/views/tasks"
)

// maxRollbackBody bounds a rollback as sent: one number.
const maxRollbackBody = 1 << 10

// TemplateRollback makes an earlier version of a template current again, as a new version
// equal to it (the project's leads and admins), and answers the template; when that
// version's fields are the current ones nothing changes. POST /api/v1/templates/:id/rollback.
func (h *Handler) TemplateRollback(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	var req api.TemplateRollback
	if err := handlers.DecodeJSON(c, maxRollbackBody, &req); err != nil {
		return err
	}
	t, _, err = h.rollBack(c, t, req.Version)
	if err != nil {
		return handlers.StoreError(err)
	}
	uses, err := h.store.TemplateUses(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toTemplateJSON(t, uses))
}

// TemplateFormRollback is the template page's "Roll back to this version" button (the
// project's leads and admins): the page again with what happened, or, when the store refuses
// the version's fields as they stand now, with why (422). POST /templates/:id/rollback.
func (h *Handler) TemplateFormRollback(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	f, err := postedForm(c)
	if err != nil {
		return err
	}
	version, err := strconv.Atoi(f.Get("version"))
	if err != nil {
		return handlers.BadRequest("version", "version must be a whole number")
	}
	_, changed, err := h.rollBack(c, t, version)
	var fe *models.FieldError
	switch {
	case errors.As(err, &fe):
		d, derr := h.templateData(c, t)
		if derr != nil {
			return derr
		}
		d.RollbackError = handlers.Invalid(handlers.Locale(c), fe)
		return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.Template(handlers.Locale(c), d))
	case err != nil:
		return handlers.StoreError(err)
	}
	notice := tasksview.NoticeRolledBack
	if !changed {
		notice = tasksview.NoticeUnchanged
	}
	return c.Redirect(http.StatusSeeOther, "/templates/"+strconv.FormatInt(t.ID, 10)+"?notice="+notice)
}

// rollBack makes version of template t current again, as the caller of c.
func (h *Handler) rollBack(c echo.Context, t models.TaskTemplate, version int) (models.TaskTemplate, bool, error) {
	return h.store.RollBackTemplate(c.Request().Context(), t.ID, version, handlers.Who(c).User.Name, h.Cfg.TaskLimits, h.Now())
}
