package board

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	boardview "kashi/views/board"
)

// NodePage shows one node: its GPUs now, each linking to its page, their history together
// over ?range= from the rollups, and the tasks that held them. GET /nodes/:id.
func (h *Handler) NodePage(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return echo.NewHTTPError(http.StatusBadRequest, "id: a node id")
	}
	ctx := c.Request().Context()
	n, err := h.store.NodePlace(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return handlers.PageError(http.StatusNotFound, handlers.Locale(c).T("error.no_node"))
	}
	if err != nil {
		return err
	}
	ids := make([]int64, len(n.GPUs))
	var memTotal int64
	for i, g := range n.GPUs {
		ids[i] = g.ID
		memTotal += g.MemoryTotalMiB
	}
	hist, err := h.history(c, ids, memTotal)
	if err != nil {
		return err
	}
	d := boardview.NodePageData{HistoryData: hist, ID: n.ID, Hostname: n.Hostname, Pool: n.Pool, State: n.State,
		LastSeen: n.LastSeenAt, Admin: handlers.Who(c).Admin()}
	bn, err := h.boardNode(c, n.ID)
	if err != nil {
		return err
	}
	d.GPUs = bn.GPUs
	if bn.LastSeen.After(d.LastSeen) {
		d.LastSeen = bn.LastSeen
	}
	return handlers.Render(c, http.StatusOK, boardview.NodePage(handlers.Locale(c), d))
}
