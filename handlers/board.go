package handlers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/views"
)

// Board renders the occupancy board: the whole page, or only the grid when HTMX asks
// (HX-Request). The answer carries an ETag of its bytes; a matching If-None-Match gets 304,
// so a refresh that changes nothing costs no transfer and no swap. GET /.
func (h *Board) Board(c echo.Context) error {
	ctx := c.Request().Context()
	f := views.BoardFilter{Pool: c.QueryParam("pool"), Spec: c.QueryParam("spec"), Project: c.QueryParam("project")}
	rows, err := h.store.BoardGPUs(ctx, models.BoardFilter(f))
	if err != nil {
		return err
	}
	d := h.boardData(rows, h.now())
	d.Filter = f
	if d.Options.Pools, d.Options.Specs, d.Options.Projects, err = h.store.BoardOptions(ctx); err != nil {
		return err
	}
	l := Locale(c)
	var comp templ.Component = views.Board(l, d)
	if c.Request().Header.Get("HX-Request") == "true" {
		comp = views.BoardGrid(l, d)
	}
	var buf bytes.Buffer
	if err := comp.Render(renderContext(c), &buf); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	c.Response().Header().Set("ETag", etag)
	c.Response().Header().Set("Vary", "HX-Request, Accept-Language, Cookie")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	if c.Request().Header.Get("If-None-Match") == etag {
		return c.NoContent(http.StatusNotModified)
	}
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}
