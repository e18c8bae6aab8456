package tasks

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/views"
)

// QueueList lists the waiting tasks in queue order with position, lane, estimated start
// and why each waits, and the free capacity per spec. It is computed on request from a
// snapshot, storing nothing, so every replica answers alike. GET /api/v1/queue.
func (h *Handler) QueueList(c echo.Context) error {
	now := h.Now()
	st, err := h.loadQueue(c.Request().Context(), now)
	if err != nil {
		return err
	}
	out := api.Queue{Now: now.UTC().Truncate(time.Second), Tasks: make([]api.QueueEntry, 0, len(st.view.Entries)),
		Capacity: make([]api.Capacity, 0, len(st.view.Capacity))}
	who, l := handlers.Who(c), handlers.Locale(c)
	for e, r := range st.entries {
		tj := h.taskJSON(l, r)
		tj.ReasonCodes = nil // the entry's reason is its wait's
		if !who.CanSee(r.ProjectID) {
			tj = redacted(tj)
		}
		row := queueRow(e, r, now)
		out.Tasks = append(out.Tasks, api.QueueEntry{Task: tj, Position: e.Position, Lane: e.Lane,
			ETAP50: etaJSON(e.ETAP50), ETAP90: etaJSON(e.ETAP90), Reason: row.Reason, ReasonText: views.ReasonText(l, row),
			ReasonDetail: row.Detail, Ahead: e.Ahead, PlaceSpec: e.PlaceSpec, PlaceRegion: e.PlaceRegion, PlaceWhy: e.PlaceWhy,
			Quota: quotaWait(e.Quota)})
	}
	pools, err := h.store.ConfiguredPools(c.Request().Context())
	if err != nil {
		return err
	}
	for _, cp := range st.view.Capacity {
		c := api.Capacity{Spec: cp.Spec, Region: cp.Region, Total: cp.Total, Held: cp.Held, Free: cp.Free, Booked: cp.Booked,
			BookedFor: cp.BookedFor, LargestFree: cp.LargestFree, ShortReserve: cp.ShortReserve, ShortReserveHeld: cp.ShortReserveHeld,
			Pools: handlers.PlaceAttributes(pools, cp.Spec, cp.Region)}
		if c.BookedFor == nil {
			c.BookedFor = []string{}
		}
		out.Capacity = append(out.Capacity, c)
	}
	return c.JSON(http.StatusOK, out)
}

// etaJSON is an estimated start in UTC to the second, nil when unknown.
func etaJSON(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC().Truncate(time.Second)
	return &t
}
