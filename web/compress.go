package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// compress gzips answers of 1 KiB or more to clients that accept it: pages, htmx fragments,
// JSON, CSV and the static files (the board's 150 KB page travels as 12 KB). It leaves
// alone what is compressed already or compresses itself: XLSX downloads (a zip archive),
// /metrics (the Prometheus handler gzips its own answer, and twice would break a scrape), and
// the agents' API (small answers, many a second, where a compressor per request is pure
// cost), and the board (GET /), which compresses each shared render once for all its viewers
// (handlers/board, board_gzip.go). Kashi streams no server-sent events; a streamed CSV is
// flushed through as it goes.
func compress() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 1024, Skipper: func(c echo.Context) bool {
		u := c.Request().URL
		return u.Path == "/metrics" || strings.HasPrefix(u.Path, "/api/v1/agent/") || u.Path == "/" && c.Request().Method == http.MethodGet ||
			strings.HasSuffix(u.Path, ".xlsx") || u.Query().Get("format") == "xlsx"
	}})
}
