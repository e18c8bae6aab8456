package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/agent/protocol"
)

// AgentSamples stores a batch of GPU samples from the authenticated node.
// POST /api/v1/agent/samples.
func (h *Handler) AgentSamples(c echo.Context) error {
	var req protocol.SamplesRequest
	if err := decodeJSON(c, protocol.MaxBodyBytes, &req); err != nil {
		return err
	}
	res, err := h.store.IngestSamples(c.Request().Context(), agentNode(c).ID, req.Samples, h.now())
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	samplesStored.Add(float64(res.Accepted))
	samplesDuplicate.Add(float64(res.Duplicates))
	return c.JSON(http.StatusOK, protocol.SamplesResponse{Accepted: res.Accepted, Duplicates: res.Duplicates})
}
