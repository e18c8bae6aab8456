package handlers

import (
	"net"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// PathID parses the :id path parameter.
func PathID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, BadRequest("id", "id must be a positive integer")
	}
	return id, nil
}

// ClientAddr is the address the request came from: the connection's peer, never a header a
// client could forge (behind a proxy, that is the proxy).
func ClientAddr(c echo.Context) string {
	host, _, err := net.SplitHostPort(c.Request().RemoteAddr)
	if err != nil {
		return c.Request().RemoteAddr
	}
	return host
}

// Bearer is the token of the request's "Authorization: Bearer" header; ok is false without one.
func Bearer(c echo.Context) (string, bool) {
	v := c.Request().Header.Get(echo.HeaderAuthorization)
	tok, ok := strings.CutPrefix(v, "Bearer ")
	return strings.TrimSpace(tok), ok && strings.TrimSpace(tok) != ""
}
