package board

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	boardview "kashi/views/board"
)

// GPUPage shows one GPU: where it is, its reading now, its utilization, memory, temperature
// and power over ?range= (1h, 24h, 7d, 30d) from the rollups, and the tasks that held it.
// GET /gpus/:uuid.
func (h *Handler) GPUPage(c echo.Context) error {
	ctx := c.Request().Context()
	g, err := h.store.GPUByUUID(ctx, c.Param("uuid"))
	if errors.Is(err, models.ErrNotFound) {
		return handlers.PageError(http.StatusNotFound, handlers.Locale(c).T("error.no_gpu"))
	}
	if err != nil {
		return err
	}
	hist, err := h.history(c, []int64{g.ID}, g.MemoryTotalMiB)
	if err != nil {
		return err
	}
	d := boardview.GPUPageData{HistoryData: hist, UUID: g.UUID, Index: g.Index, Name: g.Name, Spec: g.Spec, NodeID: g.NodeID,
		Node: g.Hostname, Pool: g.Pool, LastSeen: g.SampledAt}
	node, err := h.boardNode(c, g.NodeID)
	if err != nil {
		return err
	}
	for _, card := range node.GPUs {
		if card.UUID == g.UUID {
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
	d := h.boardData(mine, h.Now())
	if len(d.Nodes) == 0 {
		return views.BoardNode{}, nil
	}
	return d.Nodes[0], nil
}
