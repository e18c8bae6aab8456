package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/models"
	"kashi/rightsize"
)

// TaskShow returns one task with its event log. GET /api/v1/tasks/:id.
func (h *Tasks) TaskShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	t, err := h.visibleTask(c, id)
	if err != nil {
		return err
	}
	events, err := h.store.TaskEvents(ctx, id)
	if err != nil {
		return err
	}
	held, err := h.heldCards(ctx, id, h.now())
	if err != nil {
		return err
	}
	advice, err := h.taskAdvice(ctx, t, held, h.now())
	if err != nil {
		return err
	}
	out := struct {
		api.TaskDetail
		// Advice is what the task's next run should ask for, from what this run measured;
		// absent while it runs or without enough readings.
		Advice *rightsize.Advice `json:"advice,omitempty"`
	}{TaskDetail: api.TaskDetail{Task: toTaskJSON(t), Events: make([]api.TaskEvent, len(events))}, Advice: advice}
	for i, e := range events {
		out.Events[i] = api.TaskEvent{At: e.At, From: e.From, To: e.To, Reason: e.Reason}
	}
	return c.JSON(http.StatusOK, out)
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
		return echo.NewHTTPError(http.StatusNotFound, api.Error{Error: "not found"})
	case errors.Is(err, models.ErrConflict):
		return echo.NewHTTPError(http.StatusConflict, api.Error{Error: conflictMessage(err)})
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
