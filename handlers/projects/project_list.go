package projects

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
)

// quotaJSON is a quota in the API.
type quotaJSON struct {
	Spec           string `json:"spec"`
	MaxGPUs        int    `json:"max_gpus"`
	GuaranteedGPUs int    `json:"guaranteed_gpus"`
	// MaxServiceGPUs caps the cards the project's services hold; 0 for no cap of their own.
	MaxServiceGPUs  int     `json:"max_service_gpus"`
	BudgetCardHours int64   `json:"budget_card_hours"`
	UsedCardHours   float64 `json:"used_card_hours"`
	// InUseGPUs is the cards the project holds now that count against the quota: of its
	// spec, or of every spec for a quota of all specs, as the scheduler counts them
	// (scheduler.QuotaUse); LimitGPUs the limit they are admitted against now (the
	// temporary one while it is in force).
	InUseGPUs       int        `json:"in_use_gpus"`
	LimitGPUs       int        `json:"limit_gpus"`
	StartsAt        time.Time  `json:"starts_at"`
	EndsAt          time.Time  `json:"ends_at"`
	OverflowAllowed bool       `json:"overflow_allowed"`
	OverflowRateFen int64      `json:"overflow_rate_fen"`
	OverrideMaxGPUs int        `json:"override_max_gpus,omitempty"`
	OverrideBegins  *time.Time `json:"override_begins,omitempty"`
	OverrideEnds    *time.Time `json:"override_ends,omitempty"`
	// RemindEndDays and RemindBudgetPcts are the quota's own reminders; empty when it keeps
	// the server's.
	RemindEndDays    []int `json:"remind_end_days"`
	RemindBudgetPcts []int `json:"remind_budget_pcts"`
	// ContractMaxGPUs, ContractGuaranteedGPUs and ContractBudgetCardHours are the contract:
	// how far a lead may raise the limit, the guarantee and the budget (above, an admin).
	ContractMaxGPUs         int   `json:"contract_max_gpus"`
	ContractGuaranteedGPUs  int   `json:"contract_guaranteed_gpus"`
	ContractBudgetCardHours int64 `json:"contract_budget_card_hours"`
}

// projectJSON is a project in the API, with its quotas and this month's use of them.
type projectJSON struct {
	ID     int64       `json:"id"`
	Name   string      `json:"name"`
	Role   string      `json:"role,omitempty"`
	Tags   []string    `json:"tags"`
	Quotas []quotaJSON `json:"quotas"`
	// Reclaim is the project's idle-reclaim override (POST /api/v1/projects/:id/reclaim).
	Reclaim models.ReclaimOverride `json:"reclaim"`
	// ArchivedAt is when the project was archived; absent while it is in use.
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
}

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
func (h *Handler) projects(c echo.Context) ([]projectJSON, error) {
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
	out := []projectJSON{}
	for _, pr := range all {
		if !p.SeesBills(pr.ID) {
			continue
		}
		pj := projectJSON{ID: pr.ID, Name: pr.Name, Role: p.Projects[pr.ID], Tags: pr.TagList(), Quotas: []quotaJSON{},
			Reclaim: pr.Reclaim, ArchivedAt: pr.ArchivedAt}
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
func toQuotaJSON(q models.Quota, used map[string]int64, inUse scheduler.Use, now time.Time) quotaJSON {
	sec := used[q.Spec]
	if q.Spec == "" {
		sec = 0
		for _, s := range used {
			sec += s
		}
	}
	days, pcts := q.Reminders()
	most, guaranteed, budget := q.Contract()
	return quotaJSON{ContractMaxGPUs: most, ContractGuaranteedGPUs: guaranteed, ContractBudgetCardHours: budget, Spec: q.Spec, MaxGPUs: q.MaxGPUs, GuaranteedGPUs: q.GuaranteedGPUs, MaxServiceGPUs: q.MaxServiceGPUs,
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
