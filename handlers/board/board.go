package board

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	boardview "kashi/views/board"
)

// Board renders the occupancy board, as cards or as the compact grid (?view=grid; the
// default above a page of cards, defaultView): the whole page, or only the grid when HTMX
// asks (HX-Request). Filters (pool, spec, project, owner, state), the sort and the page come
// from the URL and are applied here, on the server; an unknown view, state or sort, or a page
// out of range, is a 400. One render of each view serves all its viewers for the configured
// interval (board_share.go). The answer carries an ETag of its bytes; a matching
// If-None-Match gets 304, so a refresh that changes nothing costs no transfer and no swap. GET /.
func (h *Handler) Board(c echo.Context) error {
	f, err := boardFilter(c)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	k := shareKey{filter: f, lang: l.Lang, admin: handlers.Who(c).Admin(), partial: c.Request().Header.Get("HX-Request") == "true"}
	now := h.Now()
	// The shared part is rendered with the request's context alone, so who asks is not in
	// it, and without its cancellation: the viewers waiting for it should not fail because
	// the one who asked first went away.
	ctx := context.WithoutCancel(c.Request().Context())
	r, err := h.share.get(k, now, h.store.BoardVersion(), h.store.BoardLag(), func() ([]byte, error) {
		d, err := h.buildBoard(ctx, k, now)
		if err != nil {
			return nil, err
		}
		comp := boardview.BoardBody(l, d)
		switch {
		case k.partial && d.Filter.View == boardview.ViewGrid:
			comp = boardview.CompactGrid(l, d)
		case k.partial:
			comp = boardview.BoardGrid(l, d)
		}
		var buf bytes.Buffer
		err = comp.Render(ctx, &buf)
		return buf.Bytes(), err
	})
	if err != nil {
		return err
	}
	// A page is the layout, written for its viewer, around the shared render.
	var before, after []byte
	etag := r.etag
	if !k.partial {
		var buf bytes.Buffer
		page := boardview.Board(l, templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
			_, err := io.WriteString(w, renderMark)
			return err
		}))
		if err := page.Render(handlers.RenderContext(c), &buf); err != nil {
			return err
		}
		var found bool
		if before, after, found = bytes.Cut(buf.Bytes(), []byte(renderMark)); !found {
			return errors.New("board: the page's layout left out its board")
		}
		etag = etagOf(before, []byte(r.etag), after)
	}
	c.Response().Header().Set("ETag", etag)
	c.Response().Header().Add("Vary", "HX-Request, Accept-Language, Cookie, Accept-Encoding") // a 304 too: the board compresses itself
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	if c.Request().Header.Get("If-None-Match") == etag {
		return c.NoContent(http.StatusNotModified)
	}
	return answer(c, r.gzipPart, before, after)
}

// renderMark stands in the page's layout where the shared render goes; the layout is
// written around it. A comment no text of a page makes.
const renderMark = "<!--kashi:board-render-->"

// buildBoard builds the board of k at now: the selection, its view, the page, and the
// cards of the page alone (board_build.go).
func (h *Handler) buildBoard(ctx context.Context, k shareKey, now time.Time) (boardview.BoardData, error) {
	f := k.filter
	rows, err := h.store.BoardGPUs(ctx, models.BoardFilter{Pool: f.Pool, Spec: f.Spec, Project: f.Project})
	if err != nil {
		return boardview.BoardData{}, err
	}
	s := h.selectRows(rows, now)
	d := boardview.BoardData{Now: now, IdleAfter: h.Cfg.IdleAfter, SaturatedAfter: h.Cfg.SaturatedAfter, Pools: s.pools}
	d.Filter, d.ActivePct = f, h.store.Thresholds().ActiveUtilPct
	if d.Options.Pools, d.Options.Specs, d.Options.Projects, err = h.store.BoardOptions(ctx); err != nil {
		return d, err
	}
	d.Options.Owners = owners(rows)
	if err := h.markBookings(ctx, &d, &s, now); err != nil {
		return d, err
	}
	s.classify(d.ActivePct)
	s.narrow(f)
	if d.Filter.View == "" {
		d.Filter.View = defaultView(s.cards())
	}
	if f.Sort == boardview.SortIdle {
		s.sortIdleFirst()
	}
	d.Counts = s.counts()
	d.Nodes = s.draw(paginate(&d, s.nodes), now, k.admin)
	if d.Filter.View == boardview.ViewGrid {
		strips, err := h.store.UtilStrips(ctx, now)
		if err != nil {
			return d, err
		}
		addStrips(d.Nodes, strips)
	}
	return d, nil
}

// etagOf is the ETag of an answer's bytes, given in parts.
func etagOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:12]) + `"`
}

// boardFilter reads the board's filter, view and sort from the URL.
func boardFilter(c echo.Context) (boardview.BoardFilter, error) {
	f := boardview.BoardFilter{Pool: c.QueryParam("pool"), Spec: c.QueryParam("spec"), Project: c.QueryParam("project"),
		Owner: c.QueryParam("owner"), State: c.QueryParam("state"), Sort: c.QueryParam("sort"), View: c.QueryParam("view"), Page: 1}
	if p := c.QueryParam("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxPage {
			return f, handlers.BadRange(c, "page", 1, maxPage)
		}
		f.Page = n
	}
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
