package handlers

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/models"
)

const nodeKey = "kashi.node"

// NodeAuth admits requests bearing a node's token and stores the node for AgentNode.
func (h *Agent) NodeAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		tok, ok := bearer(c)
		if !ok {
			return unauthorized("missing bearer token")
		}
		node, err := h.store.NodeByTokenHash(c.Request().Context(), models.HashToken(tok))
		if errors.Is(err, models.ErrNotFound) {
			return unauthorized("unknown node token")
		}
		if err != nil {
			return err
		}
		c.Set(nodeKey, node)
		return next(c)
	}
}

// agentNode returns the node NodeAuth admitted.
func agentNode(c echo.Context) models.Node { return c.Get(nodeKey).(models.Node) }

// joinTokenOK reports whether the request bears the configured join token.
func (h *Agent) joinTokenOK(c echo.Context) bool {
	tok, ok := bearer(c)
	return ok && h.cfg.JoinToken != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(h.cfg.JoinToken)) == 1
}

func bearer(c echo.Context) (string, bool) {
	v := c.Request().Header.Get(echo.HeaderAuthorization)
	tok, ok := strings.CutPrefix(v, "Bearer ")
	return strings.TrimSpace(tok), ok && strings.TrimSpace(tok) != ""
}

func unauthorized(msg string) error {
	return echo.NewHTTPError(http.StatusUnauthorized, api.Error{Error: msg})
}
