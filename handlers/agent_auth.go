package handlers

import (
	"crypto/subtle"
	"errors"

	"github.com/labstack/echo/v4"

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
