package pools

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	poolsview "kashi/views/pools"
)

// archiveShown is how many uploads not yet arrived the archive page lists.
const archiveShown = 200

// ArchivePage shows the admins where records are archived and the archive's outbox: the
// uploads not arrived yet (those failing first, with why and when they are tried again),
// and how many arrived. GET /archive.
func (h *Handler) ArchivePage(c echo.Context) error {
	box, err := h.store.ArchiveQueue(c.Request().Context(), archiveShown)
	if err != nil {
		return err
	}
	d := poolsview.ArchiveData{Now: h.Now().In(h.Loc()), Target: h.Cfg.Archive, Pending: box.Pending, Failing: box.Failing,
		Arrived: box.Arrived, LastArrived: box.LastArrived}
	for _, u := range box.Waiting {
		d.Waiting = append(d.Waiting, poolsview.ArchiveUploadView{Kind: u.Kind, Key: u.Key, Size: u.Size, Attempts: u.Attempts,
			NextAt: u.NextAt, LastError: u.LastError, Since: u.CreatedAt})
	}
	return handlers.Render(c, http.StatusOK, poolsview.Archive(handlers.Locale(c), d))
}
