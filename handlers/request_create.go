package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// requestBody is the body of POST /api/v1/requests.
type requestBody struct {
	Project string             `json:"project"`
	Spec    string             `json:"spec"`
	Kind    string             `json:"kind"`
	Change  models.QuotaChange `json:"change"`
	Reason  string             `json:"reason"`
}

// RequestCreate files a quota request for a project the caller belongs to.
// POST /api/v1/requests.
func (h *Projects) RequestCreate(c echo.Context) error {
	var b requestBody
	if err := decodeJSON(c, 16<<10, &b); err != nil {
		return err
	}
	req, err := h.fileRequest(c, b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toRequestJSON(models.QuotaRequestRow{QuotaRequest: req, Project: b.Project, Requester: Who(c).User.Name}))
}

// fileRequest checks the caller belongs to the project and files the request.
func (h *Projects) fileRequest(c echo.Context, b requestBody) (models.QuotaRequest, error) {
	ctx := c.Request().Context()
	p, err := h.store.ProjectByName(ctx, b.Project)
	if err != nil {
		return models.QuotaRequest{}, apiError(http.StatusUnprocessableEntity, models.Invalid("project", "unknown project"))
	}
	if !Who(c).CanRun(p.ID) {
		return models.QuotaRequest{}, forbidden("you are not a member of project " + p.Name)
	}
	if b.Change.ReserveRepeat != "" && b.Change.ReserveZone == "" {
		b.Change.ReserveZone = h.loc().String()
	}
	req, err := h.store.CreateQuotaRequest(ctx, Who(c).User, p.ID, b.Spec, b.Kind, b.Change, b.Reason, h.now())
	if err != nil {
		return req, apiError(http.StatusUnprocessableEntity, err)
	}
	return req, nil
}
