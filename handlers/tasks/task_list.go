package tasks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// TaskList lists the tasks of the caller's projects (all for admins), newest first.
// GET /api/v1/tasks?project=&state=&owner=&limit=; state and owner take comma-separated lists,
// and an owner who is neither a user nor any task's owner is a 400 naming owner (a typo is not
// an empty list).
func (h *Handler) TaskList(c echo.Context) error {
	states, err := statesParam(c)
	if err != nil {
		return err
	}
	f := models.TaskFilter{Project: c.QueryParam("project"), States: states, ProjectIDs: handlers.VisibleProjects(handlers.Who(c))}
	for o := range strings.SplitSeq(c.QueryParam("owner"), ",") {
		if o == "" {
			continue
		}
		noUser := handlers.BadRequest("owner", fmt.Sprintf("no user %q", o))
		if !utf8.ValidString(o) || strings.ContainsRune(o, 0) {
			return noUser // no name holds it, and Postgres would refuse the query
		}
		if known, err := h.knownOwner(c.Request().Context(), o); err != nil {
			return err
		} else if !known {
			return noUser
		}
		f.Owners = append(f.Owners, o)
	}
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return handlers.BadRequest("limit", "limit must be between 1 and 1000")
		}
		f.Limit = n
	}
	rows, err := h.store.Tasks(c.Request().Context(), f)
	if err != nil {
		return err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	hosts, err := h.store.TaskHosts(c.Request().Context(), ids)
	if err != nil {
		return err
	}
	out := make([]api.Task, len(rows))
	for i, r := range rows {
		out[i] = h.taskJSON(handlers.Locale(c), r)
		out[i].Nodes = hosts[r.ID]
	}
	c.Response().Header().Set(api.HeaderNow, h.Now().UTC().Format(time.RFC3339Nano))
	return c.JSON(http.StatusOK, out)
}

// knownOwner reports whether name is a user's, or owns some task (one submitted on behalf of a
// person without a login, or by one removed since).
func (h *Handler) knownOwner(ctx context.Context, name string) (bool, error) {
	_, err := h.store.UserByName(ctx, name)
	if !errors.Is(err, models.ErrNotFound) {
		return err == nil, err
	}
	ts, err := h.store.Tasks(ctx, models.TaskFilter{Owner: name, Limit: 1})
	return len(ts) > 0, err
}
