package handlers

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// pathID parses the :id path parameter.
func pathID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("id", "id must be a positive integer")
	}
	return id, nil
}

func bearer(c echo.Context) (string, bool) {
	v := c.Request().Header.Get(echo.HeaderAuthorization)
	tok, ok := strings.CutPrefix(v, "Bearer ")
	return strings.TrimSpace(tok), ok && strings.TrimSpace(tok) != ""
}
