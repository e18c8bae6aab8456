package board

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	boardview "kashi/views/board"
)

// Board renders the occupancy board, as cards or as the compact grid (?view=grid): the whole
// page, or only the grid when HTMX asks (HX-Request). Filters (pool, spec, project, owner,
// state) and the sort come from the URL; an unknown view, state or sort is a 400. The answer
// carries an ETag of its bytes; a matching If-None-Match gets 304, so a refresh that changes
// nothing costs no transfer and no swap. GET /.
func (h *Handler) Board(c echo.Context) error {
	ctx := c.Request().Context()
	f, err := boardFilter(c)
	if err != nil {
		return err
	}
	rows, err := h.store.BoardGPUs(ctx, models.BoardFilter{Pool: f.Pool, Spec: f.Spec, Project: f.Project})
	if err != nil {
		return err
	}
	now := h.Now()
	d := h.boardData(rows, now, handlers.Who(c).Admin())
	d.Filter, d.ActivePct = f, h.store.Thresholds().ActiveUtilPct
	if d.Options.Pools, d.Options.Specs, d.Options.Projects, err = h.store.BoardOptions(ctx); err != nil {
		return err
	}
	d.Options.Owners = owners(rows)
	if err := h.markBookings(ctx, &d, now); err != nil {
		return err
	}
	if f.View == boardview.ViewGrid {
		strips, err := h.store.UtilStrips(ctx, now)
		if err != nil {
			return err
		}
		addStrips(&d, rows, strips)
	}
	narrowNodes(&d)
	if f.Sort == boardview.SortIdle {
		sortIdleFirst(d.Nodes)
	}
	l := handlers.Locale(c)
	var comp templ.Component = boardview.Board(l, d)
	if c.Request().Header.Get("HX-Request") == "true" {
		comp = boardview.BoardGrid(l, d)
		if f.View == boardview.ViewGrid {
			comp = boardview.CompactGrid(l, d)
		}
	}
	var buf bytes.Buffer
	if err := comp.Render(handlers.RenderContext(c), &buf); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	c.Response().Header().Set("ETag", etag)
	c.Response().Header().Add("Vary", "HX-Request, Accept-Language, Cookie")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	if c.Request().Header.Get("If-None-Match") == etag {
		return c.NoContent(http.StatusNotModified)
	}
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}

// boardFilter reads the board's filter, view and sort from the URL.
func boardFilter(c echo.Context) (boardview.BoardFilter, error) {
	f := boardview.BoardFilter{Pool: c.QueryParam("pool"), Spec: c.QueryParam("spec"), Project: c.QueryParam("project"),
		Owner: c.QueryParam("owner"), State: c.QueryParam("state"), Sort: c.QueryParam("sort"), View: c.QueryParam("view")}
	switch {
	case f.View != "" && f.View != boardview.ViewCards && f.View != boardview.ViewGrid:
		return f, handlers.BadChoice(c, "view", boardview.ViewCards, boardview.ViewGrid)
	case f.Sort != "" && f.Sort != boardview.SortNode && f.Sort != boardview.SortIdle:
		return f, handlers.BadChoice(c, "sort", boardview.SortNode, boardview.SortIdle)
	case f.State != "" && !slices.Contains(boardview.CompactStates, f.State):
		return f, handlers.BadChoice(c, "state", boardview.CompactStates...)
	}
	return f, nil
}
