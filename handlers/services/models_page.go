package services

import (
	"math"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/serving"
	servicesview "kashi/views/services"
)

// ModelsPage shows each inference service over ?range= (1h, 24h, 7d, 30d; default 24h): its
// replicas and cards now, requests and output tokens a second, time to first token from the
// merged buckets, its cards' use, and, to those who may read its project's bills, its cost
// and cost per million output tokens. GET /models.
func (h *Handler) ModelsPage(c echo.Context) error {
	d, err := h.models(c)
	if err != nil {
		return err
	}
	return handlers.Render(c, http.StatusOK, servicesview.Models(handlers.Locale(c), d))
}

// models reads the services over ?range= into the page's data, with the costs the viewer
// may see.
func (h *Handler) models(c echo.Context) (servicesview.ModelsData, error) {
	ctx := c.Request().Context()
	r, span, _, err := handlers.HistoryRange(c)
	if err != nil {
		return servicesview.ModelsData{}, err
	}
	now := h.Now()
	from := now.Add(-span)
	uses, err := h.store.ServiceUses(ctx, from, now)
	if err != nil {
		return servicesview.ModelsData{}, err
	}
	prices, err := h.store.Prices(ctx, now.In(h.Loc()).Format("2006-01"))
	if err != nil {
		return servicesview.ModelsData{}, err
	}
	p := handlers.Who(c)
	d := servicesview.ModelsData{Range: r, From: from.In(h.Loc()), To: now.In(h.Loc())}
	for _, u := range uses {
		row := serviceRow(u, from, now)
		rate, priced := priceOf(prices, u.ProjectID, u.Spec)
		row.CostHidden, row.Unpriced = !p.SeesBills(u.ProjectID), !priced
		priced = priced && !row.CostHidden
		if priced {
			row.CostFen, row.CostPerMTokFen = serviceCost(row.CardSeconds, rate, u.Served.GenerationTokens)
		}
		for _, pt := range u.Points {
			vp := servicesview.ServicePoint{At: pt.At.In(h.Loc()), TTFTP95: quantile(pt.Served.TTFT, 0.95)}
			if priced {
				_, vp.CostPerMTokFen = serviceCost(int64(math.Round(pt.CardSeconds)), rate, pt.Served.GenerationTokens)
			}
			row.Points = append(row.Points, vp)
		}
		d.Services = append(d.Services, row)
	}
	return d, nil
}

// serviceRow is a service's line: rates over the part of the range it ran, percentiles from
// its merged buckets.
func serviceRow(u models.ServiceUse, from, to time.Time) servicesview.ServiceRow {
	row := servicesview.ServiceRow{ID: u.ServiceID, Project: u.Project, Name: u.Name, Model: u.Model, Owner: u.Owner, Spec: u.Spec,
		Replicas: u.Replicas, Live: u.Live, GPUs: u.GPUs, Failing: u.Failing, FailingError: u.FailingError,
		CardSeconds: int64(math.Round(u.CardSeconds)), IdleCardSeconds: int64(math.Round(u.IdleCardSeconds))}
	ran := to.Sub(from)
	if !u.StartedAt.IsZero() && u.StartedAt.After(from) {
		ran = to.Sub(u.StartedAt)
	}
	if s := ran.Seconds(); s > 0 {
		row.RequestsPerS, row.TokensPerS = u.Served.Requests/s, u.Served.GenerationTokens/s
	}
	q := quantile
	row.TTFTP50, row.TTFTP95, row.TTFTP99 = q(u.Served.TTFT, 0.5), q(u.Served.TTFT, 0.95), q(u.Served.TTFT, 0.99)
	row.E2EP95 = q(u.Served.E2E, 0.95)
	row.Narrowed = u.Served.TTFT != nil && u.Served.TTFT.Narrowed
	if u.UtilN > 0 {
		pct := int((u.UtilSum + u.UtilN/2) / u.UtilN)
		row.UtilPct = &pct
	}
	row.NoTraffic = u.Live > 0 && !u.StartedAt.IsZero() && !u.StartedAt.After(from) && u.Served.Requests == 0
	return row
}

// quantile is h's p-quantile, nil when h has no observation.
func quantile(h *serving.Histogram, p float64) *float64 {
	if v, ok := h.Quantile(p); ok {
		return &v
	}
	return nil
}

// priceOf is the rate per card-hour of spec for a project: its own price, else the default
// list's.
func priceOf(prices []models.Price, projectID int64, spec string) (int64, bool) {
	var rate int64
	found := false
	for _, p := range prices {
		if p.Spec != spec {
			continue
		}
		if p.ProjectID == projectID {
			return p.RateFen, true
		}
		if p.ProjectID == 0 {
			rate, found = p.RateFen, true
		}
	}
	return rate, found
}

// serviceCost is card-seconds at rateFen a card-hour, in whole fen rounded half up, and that
// per million output tokens (nil with no token).
func serviceCost(cardSeconds, rateFen int64, tokens float64) (cost, perMTok *int64) {
	c := (cardSeconds*rateFen + 1800) / 3600
	cost = &c
	if t := int64(tokens); t > 0 {
		m := (c*1_000_000 + t/2) / t
		perMTok = &m
	}
	return cost, perMTok
}
