package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// fromTemplate is a submit from the template id names: the template's fields (its project,
// its name, data ready unless it declares a data check), then the body's own fields over
// them. The template of a project the caller does not see is 404; a project other than the
// template's, or an env name the template lists without a value, is 422.
func (h *Tasks) fromTemplate(c echo.Context, id int64, body []byte) (models.TaskTemplate, taskRequest, error) {
	ctx := c.Request().Context()
	t, err := h.store.TemplateByID(ctx, id)
	if err == nil && !Who(c).CanSee(t.ProjectID) {
		err = models.ErrNotFound
	}
	if err != nil {
		return t, taskRequest{}, storeError(err)
	}
	p, err := h.store.ProjectByID(ctx, t.ProjectID)
	if err != nil {
		return t, taskRequest{}, storeError(err)
	}
	fields := t.Fields()
	req := taskRequest{Project: p.Name, Name: t.Name, DataReady: fields.DataCheck == nil}
	raw, _ := json.Marshal(fields) // plain data; never fails
	json.Unmarshal(raw, &req)      // the template's fields have the request's names
	if err := decodeBody(body, maxTaskBody, &req); err != nil {
		return t, req, err
	}
	if req.Project != p.Name {
		return t, req, apiError(http.StatusUnprocessableEntity, &models.FieldError{Field: "project",
			Msg: "template " + t.Name + " belongs to project " + p.Name})
	}
	if missing := fields.MissingEnv(req.Env); missing != "" {
		return t, req, apiError(http.StatusUnprocessableEntity, &models.FieldError{Field: "env." + missing,
			Msg: "the template needs a value for " + missing})
	}
	return t, req, nil
}
