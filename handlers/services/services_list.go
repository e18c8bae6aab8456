package services

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// ServicesList answers the Models page's services as JSON. GET /api/v1/services.
func (h *Handler) ServicesList(c echo.Context) error {
	d, err := h.models(c)
	if err != nil {
		return err
	}
	out := make([]api.Service, 0, len(d.Services))
	for _, s := range d.Services {
		points := make([]api.ServicePoint, len(s.Points))
		for i, p := range s.Points {
			points[i] = api.ServicePoint{At: p.At, TTFTP95S: p.TTFTP95, CostPerMTokFen: p.CostPerMTokFen}
		}
		out = append(out, api.Service{ID: s.ID, Project: s.Project, Name: s.Name, Owner: s.Owner, Model: s.Model, Spec: s.Spec,
			Replicas: s.Replicas, Live: s.Live, GPUs: s.GPUs, Failing: s.Failing, RequestsPerS: s.RequestsPerS,
			OutputTokensPerS: s.TokensPerS, TTFTP50S: s.TTFTP50, TTFTP95S: s.TTFTP95, TTFTP99S: s.TTFTP99, E2EP95S: s.E2EP95,
			UtilPct: s.UtilPct, CardSeconds: s.CardSeconds, IdleCardSeconds: s.IdleCardSeconds, CostFen: s.CostFen, CostPerMTokFen: s.CostPerMTokFen, NoTraffic: s.NoTraffic,
			Points: points})
	}
	return c.JSON(http.StatusOK, out)
}
