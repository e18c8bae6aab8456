package projects

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
)

// ProjectList lists the projects the caller sees with their quotas and this month's usage.
// GET /api/v1/projects.
func (h *Handler) ProjectList(c echo.Context) error {
	out, err := h.projects(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// projects builds the caller's project list; admin and finance see every project.
func (h *Handler) projects(c echo.Context) ([]api.Project, error) {
	ctx := c.Request().Context()
	p := handlers.Who(c)
	all, err := h.store.Projects(ctx)
	if err != nil {
		return nil, err
	}
	quotas, err := h.store.Quotas(ctx, 0)
	if err != nil {
		return nil, err
	}
	usage, err := h.monthUsage(ctx)
	if err != nil {
		return nil, err
	}
	use, err := h.quotaUse(ctx)
	if err != nil {
		return nil, err
	}
	out := []api.Project{}
	for _, pr := range all {
		if !p.SeesBills(pr.ID) {
			continue
		}
		pj := api.Project{ID: pr.ID, Name: pr.Name, Role: p.Projects[pr.ID], Tags: pr.TagList(), Quotas: []api.Quota{},
			Reclaim: api.ReclaimOverride(pr.Reclaim), ArchivedAt: pr.ArchivedAt}
		if pj.Tags == nil {
			pj.Tags = []string{}
		}
		for _, q := range quotas {
			if q.ProjectID == pr.ID {
				pj.Quotas = append(pj.Quotas, toQuotaJSON(q, usage[pr.ID], use[pr.Name], h.Now()))
			}
		}
		out = append(out, pj)
	}
	return out, nil
}

// monthUsage is the card-seconds each project held on each spec so far this month.
func (h *Handler) monthUsage(ctx context.Context) (map[int64]map[string]int64, error) {
	now := h.Now()
	return h.store.UsageSeconds(ctx, models.MonthStart(now, h.Loc()), now)
}

// quotaUse is the cards each project holds now, by project name, as the scheduler counts
// them against its quotas: the one count (scheduler.QuotaUse) that every page showing a
// quota in use reads, kept with the queue by the scheduler's last tick.
func (h *Handler) quotaUse(ctx context.Context) (map[string]scheduler.Use, error) {
	v, err := h.Sched.Queue(ctx, h.Now())
	return v.Use, err
}

// toQuotaJSON is a quota with the card-hours its project used this month (used: by spec)
// and the cards it holds at now (inUse) against its limit then.
func toQuotaJSON(q models.Quota, used map[string]int64, inUse scheduler.Use, now time.Time) api.Quota {
	sec := used[q.Spec]
	if q.Spec == "" {
		sec = 0
		for _, s := range used {
			sec += s
		}
	}
	days, pcts := q.Reminders()
	most, guaranteed, budget := q.Contract()
	return api.Quota{ContractMaxGPUs: most, ContractGuaranteedGPUs: guaranteed, ContractBudgetCardHours: budget, Spec: q.Spec, MaxGPUs: q.MaxGPUs, GuaranteedGPUs: q.GuaranteedGPUs, MaxServiceGPUs: q.MaxServiceGPUs,
		BudgetCardHours: q.BudgetCardHours, UsedCardHours: float64(sec) / 3600, InUseGPUs: inUse.Of(q.Spec), LimitGPUs: q.Limit(now), StartsAt: q.StartsAt, EndsAt: q.EndsAt, OverflowAllowed: q.OverflowAllowed,
		OverflowRateFen: q.OverflowRateFen, OverrideMaxGPUs: q.OverrideMaxGPUs, OverrideBegins: q.OverrideBegins, OverrideEnds: q.OverrideEnds,
		RemindEndDays: emptyIfNil(days), RemindBudgetPcts: emptyIfNil(pcts)}
}

// emptyIfNil makes a nil list encode as [].
func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
