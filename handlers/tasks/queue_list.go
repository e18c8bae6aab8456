package tasks

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
)

// queueJSON is the answer of GET /api/v1/queue.
type queueJSON struct {
	Now time.Time `json:"now"`
	// Tasks are the waiting tasks lane by lane (short first), in queue order.
	Tasks    []queueTaskJSON `json:"tasks"`
	Capacity []capacityJSON  `json:"capacity"`
}

// queueTaskJSON is a task's JSON plus its place in the queue. Its reason, a stable code,
// replaces the task's stored reason sentence, which reason_text gives fresh.
type queueTaskJSON struct {
	taskJSON
	Position int    `json:"position"`
	Lane     string `json:"lane"`
	// ETAP50 and ETAP90 are the estimated starts; null when unknown.
	ETAP50       *time.Time `json:"eta_p50"`
	ETAP90       *time.Time `json:"eta_p90"`
	Reason       string     `json:"reason"`
	ReasonText   string     `json:"reason_text"`
	ReasonDetail string     `json:"reason_detail,omitempty"`
	Ahead        int64      `json:"ahead,omitempty"`
	// PlaceSpec and PlaceRegion are where it starts or is expected to; PlaceWhy why there
	// (data-region, only, first-free, earliest). Absent when unknown.
	PlaceSpec   string `json:"place_spec,omitempty"`
	PlaceRegion string `json:"place_region,omitempty"`
	PlaceWhy    string `json:"place_why,omitempty"`
}

// capacityJSON is one spec's free capacity.
type capacityJSON struct {
	Spec        string `json:"spec"`
	Region      string `json:"region"`
	Total       int    `json:"total"`
	Held        int    `json:"held"`
	Free        int    `json:"free"`
	LargestFree int    `json:"largest_free"`
	// ShortReserve counts the cards kept for the short lane; ShortReserveHeld those in use.
	ShortReserve     int `json:"short_reserve"`
	ShortReserveHeld int `json:"short_reserve_held"`
}

// QueueList lists the waiting tasks in queue order with position, lane, estimated start
// and why each waits, and the free capacity per spec. It is computed on request from a
// snapshot, storing nothing, so every replica answers alike. GET /api/v1/queue.
func (h *Handler) QueueList(c echo.Context) error {
	now := h.Now()
	st, err := h.loadQueue(c.Request().Context(), now)
	if err != nil {
		return err
	}
	out := queueJSON{Now: now.UTC().Truncate(time.Second), Tasks: make([]queueTaskJSON, 0, len(st.view.Entries)),
		Capacity: make([]capacityJSON, 0, len(st.view.Capacity))}
	who := handlers.Who(c)
	for e, r := range st.entries {
		tj := toTaskJSON(r)
		if !who.CanSee(r.ProjectID) {
			tj = tj.redacted()
		}
		out.Tasks = append(out.Tasks, queueTaskJSON{taskJSON: tj, Position: e.Position, Lane: e.Lane,
			ETAP50: etaJSON(e.ETAP50), ETAP90: etaJSON(e.ETAP90), Reason: string(e.Reason), ReasonText: e.String(),
			ReasonDetail: e.Detail, Ahead: e.Ahead, PlaceSpec: e.PlaceSpec, PlaceRegion: e.PlaceRegion, PlaceWhy: e.PlaceWhy})
	}
	for _, cp := range st.view.Capacity {
		out.Capacity = append(out.Capacity, capacityJSON(cp))
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
