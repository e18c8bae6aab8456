package board

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	boardview "kashi/views/board"
)

// GPUPage shows one GPU: where it is, its reading now, its utilization, memory, temperature
// and power over ?range= (1h, 24h, 7d, 30d) from the rollups, and the tasks that held it.
// GET /gpus/:id, the GPU's id as the board links it; an admin may name it by its UUID, which
// only admins are shown.
func (h *Handler) GPUPage(c echo.Context) error {
	ctx := c.Request().Context()
	admin := handlers.Who(c).Admin()
	var (
		g   models.GPUPlace
		err error
	)
	if id, perr := strconv.ParseInt(c.Param("id"), 10, 64); perr == nil && id > 0 {
		g, err = h.store.GPUByID(ctx, id)
	} else if admin {
		g, err = h.store.GPUByUUID(ctx, c.Param("id"))
	} else {
		err = models.ErrNotFound
	}
	if errors.Is(err, models.ErrNotFound) {
		return handlers.PageError(http.StatusNotFound, handlers.Locale(c).T("error.no_gpu"))
	}
	if err != nil {
		return err
	}
	if !admin {
		g.UUID = ""
	}
	hist, err := h.history(c, []int64{g.ID}, g.MemoryTotalMiB)
	if err != nil {
		return err
	}
	d := boardview.GPUPageData{HistoryData: hist, ID: g.ID, UUID: g.UUID, Index: g.Index, Name: g.Name, Spec: g.Spec, NodeID: g.NodeID,
		Node: g.Hostname, Pool: g.Pool, LastSeen: g.SampledAt}
	node, err := h.boardNode(c, g.NodeID)
	if err != nil {
		return err
	}
	for _, card := range node.GPUs {
		if card.ID == g.ID {
			d.Current = card
		}
	}
	return handlers.Render(c, http.StatusOK, boardview.GPUPage(handlers.Locale(c), d))
}

// boardNode returns node nodeID as the board shows it: last seen, and its cards with their
// latest reading, state and holder.
func (h *Handler) boardNode(c echo.Context, nodeID int64) (views.BoardNode, error) {
	rows, err := h.store.BoardGPUs(c.Request().Context(), models.BoardFilter{})
	if err != nil {
		return views.BoardNode{}, err
	}
	var mine []models.BoardGPU
	for _, r := range rows {
		if r.NodeID == nodeID {
			mine = append(mine, r)
		}
	}
	now := h.Now()
	s := h.selectRows(mine, now)
	if len(s.nodes) == 0 {
		return views.BoardNode{}, nil
	}
	return s.draw(s.nodes[:1], now, handlers.Who(c).Admin())[0], nil
}
