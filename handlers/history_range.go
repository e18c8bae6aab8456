package handlers

import (
	"time"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// HistoryRange reads ?range= (default 24h): its span and the rollups' resolution. An unknown
// range is a 400 naming the choices, in the page's language.
func HistoryRange(c echo.Context) (string, time.Duration, int, error) {
	r := c.QueryParam("range")
	switch r {
	case "1h":
		return r, time.Hour, models.Rollup5m, nil
	case "", "24h":
		return "24h", 24 * time.Hour, models.Rollup5m, nil
	case "7d":
		return r, 7 * 24 * time.Hour, models.RollupHour, nil
	case "30d":
		return r, 30 * 24 * time.Hour, models.RollupHour, nil
	}
	return "", 0, 0, BadChoice(c, "range", "1h", "24h", "7d", "30d")
}
