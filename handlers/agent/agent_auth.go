package agent

import (
	"crypto/subtle"
	"errors"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

const nodeKey = "kashi.node"

// NodeAuth admits requests bearing a node's token and stores the node for AgentNode.
func (h *Handler) NodeAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		tok, ok := handlers.Bearer(c)
		if !ok {
			return handlers.Unauthorized("missing bearer token")
		}
		node, err := h.store.NodeByTokenHash(c.Request().Context(), models.HashToken(tok))
		if errors.Is(err, models.ErrNotFound) {
			return handlers.Unauthorized("unknown node token")
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
func (h *Handler) joinTokenOK(c echo.Context) bool {
	tok, ok := handlers.Bearer(c)
	return ok && h.Cfg.JoinToken != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(h.Cfg.JoinToken)) == 1
}
