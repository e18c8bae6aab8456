package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// AgentAssignments lists what the authenticated node should run, after recording the tasks
// the node says run (?running=1,2). With ?wait=30s it is a long poll: while the list's ETag
// is the one the agent sent in If-None-Match, it waits for a change to the node's
// assignments (a placement, a stop, a reclaim; see models.WaitAssignments) up to the wait,
// and then answers the list as it stands. One request per node waits: a later one ends the
// earlier, which answers at once. GET /api/v1/agent/assignments.
func (h *Handler) AgentAssignments(c echo.Context) error {
	running, err := runningOf(c.QueryParam(api.QueryRunning))
	if err != nil {
		return handlers.APIError(http.StatusBadRequest, err)
	}
	wait, err := waitOf(c.QueryParam(api.QueryWait))
	if err != nil {
		return handlers.APIError(http.StatusBadRequest, err)
	}
	ctx, node := c.Request().Context(), agentNode(c).ID
	if err := h.store.ConfirmRunning(ctx, node, running, h.Now()); err != nil {
		return err
	}
	if wait == 0 {
		body, tag, err := h.assignments(c, node)
		if err != nil {
			return err
		}
		return answerAssignments(c, body, tag)
	}
	c.Response().Header().Set(api.HeaderAssignmentsWait, wait.String())
	known := c.Request().Header.Get("If-None-Match")
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		// The wait is registered before the read, so that a change committed after the read
		// wakes it.
		w, err := h.store.WaitAssignments(ctx, node)
		if err != nil {
			return err
		}
		body, tag, err := h.assignments(c, node)
		if err != nil || tag != known {
			w.Stop()
			if err != nil {
				return err
			}
			if err := h.changedAt(c, node); err != nil {
				return err
			}
			return answerAssignments(c, body, tag)
		}
		unpark := handlers.Park(c) // waiting takes none of the places of requests served at once
		ended := false
		select {
		case <-w.C:
			ended = w.Ended()
		case <-deadline.C:
			w.Stop()
			ended = true
		case <-ctx.Done():
			w.Stop()
		}
		if err := unpark(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ended {
			return answerAssignments(c, body, tag)
		}
	}
}

// assignments reads the node's assignments as the answer's body and its ETag.
func (h *Handler) assignments(c echo.Context, node int64) ([]byte, string, error) {
	tasks, err := h.store.Assignments(c.Request().Context(), node)
	if err != nil {
		return nil, "", err
	}
	body, err := json.Marshal(assignmentsOf(tasks))
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(body)
	return body, `"` + hex.EncodeToString(sum[:12]) + `"`, nil
}

// changedAt says in the answer when the node's assignments last changed.
func (h *Handler) changedAt(c echo.Context, node int64) error {
	at, err := h.store.AssignmentsChangedAt(c.Request().Context(), node)
	if err != nil || at.IsZero() {
		return err
	}
	c.Response().Header().Set(api.HeaderAssignmentsChanged, at.Format(time.RFC3339Nano))
	return nil
}

// answerAssignments writes the list with its ETag.
func answerAssignments(c echo.Context, body []byte, tag string) error {
	c.Response().Header().Set("ETag", tag)
	return c.JSONBlob(http.StatusOK, body)
}
