package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// AgentSamples stores a batch of GPU samples from the authenticated node.
// POST /api/v1/agent/samples.
func (h *Agent) AgentSamples(c echo.Context) error {
	var req api.SamplesRequest
	if err := decodeJSON(c, api.MaxBodyBytes, &req); err != nil {
		return err
	}
	readings, err := readingsOf(req)
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	res, err := h.store.IngestSamples(c.Request().Context(), agentNode(c).ID, readings, h.now())
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	samplesStored.Add(float64(res.Accepted))
	samplesDuplicate.Add(float64(res.Duplicates))
	return c.JSON(http.StatusOK, api.SamplesResponse{Accepted: res.Accepted, Duplicates: res.Duplicates})
}
