package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/agent/protocol"
	"kashi/models"
)

// TaskShow returns one task. GET /api/v1/tasks/:id.
func (h *Handler) TaskShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := h.store.TaskByID(c.Request().Context(), id)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(http.StatusOK, toTaskJSON(t))
}

// pathID parses the :id path parameter.
func pathID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("id", "id must be a positive integer")
	}
	return id, nil
}

// storeError maps the store's sentinel errors to 404 and 409.
func storeError(err error) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, protocol.Error{Error: "not found"})
	case errors.Is(err, models.ErrConflict):
		return echo.NewHTTPError(http.StatusConflict, protocol.Error{Error: conflictMessage(err)})
	}
	return apiError(http.StatusUnprocessableEntity, err)
}

// conflictMessage is the part of a conflict error a client may read: the store's message
// without its package prefix.
func conflictMessage(err error) string {
	msg := err.Error()
	if i := len("models: "); len(msg) > i && msg[:i] == "models: " {
		msg = msg[i:]
	}
	return msg
}
