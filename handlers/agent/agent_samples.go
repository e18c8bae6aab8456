package agent

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// AgentSamples stores a batch of GPU samples, task log lines and service replicas' scrapes
// from the authenticated node; a batch may carry log lines or scrapes only (a task's last
// lines, sent with its exit), but not nothing. POST /api/v1/agent/samples.
func (h *Handler) AgentSamples(c echo.Context) error {
	var req api.SamplesRequest
	if err := handlers.DecodeJSON(c, api.MaxBodyBytes, &req); err != nil {
		return err
	}
	readings, err := readingsOf(req)
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	pieces, err := logPiecesOf(req.Logs)
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	served, err := servingOf(req.Serving)
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	var res models.IngestResult
	if len(readings) > 0 || len(pieces) == 0 && len(served) == 0 {
		if res, err = h.store.IngestSamples(c.Request().Context(), agentNode(c).ID, readings, h.Now()); err != nil {
			return handlers.APIError(http.StatusUnprocessableEntity, err)
		}
	}
	if err := h.store.AppendTaskLogs(c.Request().Context(), agentNode(c).ID, pieces, h.Now()); err != nil {
		return err
	}
	if err := h.store.AddServiceReports(c.Request().Context(), agentNode(c).ID, served, h.Now()); err != nil {
		return err
	}
	if req.DroppedSamples > 0 {
		samplesDropped.Add(float64(req.DroppedSamples))
		slog.Warn("agent spool dropped samples while the server was away", "node", agentNode(c).Hostname, "dropped", req.DroppedSamples)
	}
	samplesStored.Add(float64(res.Accepted))
	samplesDuplicate.Add(float64(res.Duplicates))
	return c.JSON(http.StatusOK, api.SamplesResponse{Accepted: res.Accepted, Duplicates: res.Duplicates})
}
