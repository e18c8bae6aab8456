package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/views"
)

// recentAlerts is how many alerts the page and the API look at.
const recentAlerts = 200

// AlertsPage shows the open alerts, then the recently resolved ones. GET /alerts.
func (h *Pools) AlertsPage(c echo.Context) error {
	alerts, err := h.store.Alerts(c.Request().Context(), models.AlertFilter{Limit: recentAlerts})
	if err != nil {
		return err
	}
	d := views.AlertsData{Now: h.now().In(h.loc())}
	for _, a := range alerts {
		v := views.AlertView{ID: a.ID, Kind: a.Kind, Subject: a.Subject, Message: a.Message, At: a.At, LastAt: a.LastAt,
			Count: a.Count, ResolvedAt: a.ResolvedAt, Sent: a.SentAt != nil}
		if a.ResolvedAt == nil {
			d.Open = append(d.Open, v)
		} else if len(d.Resolved) < 50 {
			d.Resolved = append(d.Resolved, v)
		}
	}
	return Render(c, http.StatusOK, views.Alerts(Locale(c), d))
}

// alertJSON is one alert in GET /api/v1/alerts.
type alertJSON struct {
	ID         int64      `json:"id"`
	Kind       string     `json:"kind"`
	Subject    string     `json:"subject"`
	Message    string     `json:"message"`
	FirstAt    time.Time  `json:"first_at"`
	LastAt     time.Time  `json:"last_at"`
	Count      int        `json:"count"`
	ResolvedAt *time.Time `json:"resolved_at"`
	SentAt     *time.Time `json:"sent_at"`
}

// AlertList lists recent alerts, newest first; ?open=true keeps the open ones.
// GET /api/v1/alerts.
func (h *Pools) AlertList(c echo.Context) error {
	f := models.AlertFilter{Limit: recentAlerts, OpenOnly: c.QueryParam("open") == "true"}
	alerts, err := h.store.Alerts(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := make([]alertJSON, len(alerts))
	for i, a := range alerts {
		out[i] = alertJSON{ID: a.ID, Kind: a.Kind, Subject: a.Subject, Message: a.Message, FirstAt: a.At, LastAt: a.LastAt,
			Count: a.Count, ResolvedAt: a.ResolvedAt, SentAt: a.SentAt}
	}
	return c.JSON(http.StatusOK, out)
}
