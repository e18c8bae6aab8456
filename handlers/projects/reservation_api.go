package projects

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// reservationsAhead is how far ahead GET /api/v1/reservations lists: past the longest
// repeating series (models.MaxReservationWeeks) of the longest window.
const reservationsAhead = (models.MaxReservationWeeks*7 + 31) * 24 * time.Hour

// ReservationList lists the booked windows not yet ended of the caller's projects (all for
// an admin), by start. GET /api/v1/reservations.
func (h *Handler) ReservationList(c echo.Context) error {
	now := h.Now()
	rows, err := h.store.Reservations(c.Request().Context(), now, now.Add(reservationsAhead))
	if err != nil {
		return err
	}
	out := make([]api.Reservation, 0, len(rows))
	for _, r := range rows {
		if handlers.Who(c).Admin() || handlers.Who(c).CanRun(r.ProjectID) {
			out = append(out, api.Reservation{ID: r.ID, RequestID: r.RequestID, Project: r.Project, Spec: r.Spec, GPUs: r.GPUs,
				StartsAt: r.StartsAt, EndsAt: r.EndsAt, State: r.State(), Occurrence: r.Occurrence, Occurrences: r.Occurrences})
		}
	}
	return c.JSON(http.StatusOK, out)
}

// ReservationCancel cancels a booked window not yet ended of a project the caller leads; its
// cards are free again at the next scheduling pass. POST /api/v1/reservations/:id/cancel.
func (h *Handler) ReservationCancel(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	ctx, now := c.Request().Context(), h.Now()
	rows, err := h.store.Reservations(ctx, now, now.Add(reservationsAhead))
	if err != nil {
		return err
	}
	var row *models.ReservationRow
	for i := range rows {
		if rows[i].ID == id && (handlers.Who(c).Admin() || handlers.Who(c).CanRun(rows[i].ProjectID)) {
			row = &rows[i]
		}
	}
	switch {
	case row == nil:
		return handlers.StoreError(models.ErrNotFound)
	case !handlers.Who(c).Leads(row.ProjectID):
		return handlers.Forbidden("only the project's leads cancel its reservations")
	}
	r, err := h.store.CancelReservation(ctx, handlers.Who(c).User, id, now)
	if err != nil {
		return handlers.StoreError(err)
	}
	h.Sched.Trigger()
	return c.JSON(http.StatusOK, api.Reservation{ID: r.ID, RequestID: r.RequestID, Project: row.Project, Spec: r.Spec, GPUs: r.GPUs,
		StartsAt: r.StartsAt, EndsAt: r.EndsAt, State: r.State(), Occurrence: row.Occurrence, Occurrences: row.Occurrences})
}
