package tasks

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// TaskShow returns one task with its event log. GET /api/v1/tasks/:id.
func (h *Handler) TaskShow(c echo.Context) error {
	id, err := handlers.PathID(c)
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
	held, err := h.heldCards(ctx, id, h.Now())
	if err != nil {
		return err
	}
	advice, err := h.taskAdvice(ctx, t, held, h.Now())
	if err != nil {
		return err
	}
	out := api.TaskDetail{Task: h.taskJSON(handlers.Locale(c), t), Events: make([]api.TaskEvent, len(events))}
	if advice != nil {
		// Advice is plain data: it always encodes.
		out.Advice, _ = json.Marshal(advice)
	}
	hosts, err := h.store.TaskHosts(ctx, []int64{id})
	if err != nil {
		return err
	}
	out.Nodes = hosts[id]
	for i, e := range events {
		out.Events[i] = api.TaskEvent{At: e.At, From: e.From, To: e.To}
		out.Events[i].Reason, out.Events[i].ReasonCodes = reasonJSON(handlers.Locale(c), e.Reason)
	}
	attempts, err := h.store.TaskAttempts(ctx, id)
	if err != nil {
		return err
	}
	out.Attempts = make([]api.TaskAttempt, len(attempts))
	for i, a := range attempts {
		out.Attempts[i] = api.TaskAttempt{Attempt: a.Attempt, Current: a.Current, Nodes: a.Nodes, StartedAt: a.StartedAt,
			EndedAt: a.EndedAt, Ending: a.Ending, CheckpointAt: a.CheckpointAt, Checkpoint: a.Checkpoint, LostS: a.LostS}
		if out.Attempts[i].Nodes == nil {
			out.Attempts[i].Nodes = []string{}
		}
		if a.Reason != "" {
			out.Attempts[i].Reason, out.Attempts[i].ReasonCodes = reasonJSON(handlers.Locale(c), a.Reason)
		}
	}
	c.Response().Header().Set(api.HeaderNow, h.Now().UTC().Format(time.RFC3339Nano))
	return c.JSON(http.StatusOK, out)
}
