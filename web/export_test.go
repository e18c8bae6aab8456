package web

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

// TestLimits are the bounds of a server a test fills.
type TestLimits struct {
	// InFlight is how many requests are admitted at once.
	InFlight int
	// BodyGrace is the fixed part of a body's deadline.
	BodyGrace time.Duration
	// ClientMemory and Memory bound the bytes of bodies in memory, per client and in all.
	ClientMemory, Memory int64
}

// NewLimited is New within l; a zero field keeps the server's own bound.
func NewLimited(h *Areas, l TestLimits) *echo.Echo {
	lim := defaultLimits
	if l.InFlight > 0 {
		lim.inFlight = l.InFlight
	}
	if l.BodyGrace > 0 {
		lim.bodyGrace = l.BodyGrace
	}
	if l.ClientMemory > 0 {
		lim.clientMemory = l.ClientMemory
	}
	if l.Memory > 0 {
		lim.memory = l.Memory
	}
	return build(h, false, slog.New(slog.DiscardHandler), lim)
}
