package tasks

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	"kashi/rightsize"
)

// pipelineJSON is a pipeline with its stages as the API and the pipeline page show them:
// each stage's cards, and its card-hours and cost (every run) as its project's bills of the
// months it held cards price them, as of now; the whole pipeline's estimate and actual.
func (h *Handler) pipelineJSON(c echo.Context, p models.PipelineRow) (api.Pipeline, error) {
	ctx, now := c.Request().Context(), h.Now()
	out := pipelineFields(p)
	stages, err := h.store.PipelineStages(ctx, p.ID, now)
	if err != nil {
		return out, err
	}
	billed, err := h.pipelineBilled(ctx, p, stages, now)
	if err != nil {
		return out, err
	}
	prices, err := h.store.Prices(ctx, now.Format("2006-01"))
	if err != nil {
		return out, err
	}
	for _, st := range stages {
		out.Stages = append(out.Stages, stageJSON(st, billed[st.Name]))
		s := out.Stages[len(out.Stages)-1]
		out.EstCardHours += s.EstCardHours
		out.CardHours += s.CardHours
		out.CostFen += s.CostFen
		out.EstCostFen += estCost(st, prices, p.ProjectID)
	}
	return out, nil
}

// pipelineBilled is the pipeline's stages as its project's bills price them, over the months
// from the first card its tasks held to the last (none when they held none).
func (h *Handler) pipelineBilled(ctx context.Context, p models.PipelineRow, stages []models.StageRow, now time.Time) (map[string]billing.StageCost, error) {
	var from, to time.Time
	for _, st := range stages {
		if st.HeldFrom.IsZero() {
			continue
		}
		if from.IsZero() || st.HeldFrom.Before(from) {
			from = st.HeldFrom
		}
		if st.HeldTo.After(to) {
			to = st.HeldTo
		}
	}
	if from.IsZero() {
		return nil, nil
	}
	return billing.PipelineBilled(ctx, h.store, p.ProjectID, p.ID, from, to, now)
}

// pipelineFields is a pipeline's own fields, without its stages.
func pipelineFields(p models.PipelineRow) api.Pipeline {
	return api.Pipeline{ID: p.ID, Project: p.Project, Name: p.Name, Owner: p.Owner, State: p.State, Reason: p.Reason,
		Run: p.Run, SubmittedAt: p.SubmittedAt, EndedAt: p.EndedAt}
}

// stageJSON is one stage with its card time and cost as the bills price them.
func stageJSON(st models.StageRow, billed billing.StageCost) api.Stage {
	nt := st.Task()
	after, afterEnded := st.Parents()
	out := api.Stage{Name: st.Name, After: after, AfterEnded: afterEnded, Output: st.Output, State: st.State, Reason: st.Reason,
		Task: st.TaskID, TaskState: st.TaskState, Spec: stageSpec(nt), GPUs: nt.GPUs, Cards: st.Held, EstCardHours: nt.EstGPUHours,
		CardHours: float64(billed.NominalS) / 3600, CostFen: billed.AmountFen}
	return out
}

// estCost is a stage's estimate priced at its first spec's rate, in whole fen.
func estCost(st models.StageRow, prices []models.Price, projectID int64) int64 {
	nt := st.Task()
	return int64(nt.EstGPUHours*float64(rightsize.Rate(prices, stageSpec(nt), projectID)) + 0.5)
}

// stageSpec is the spec a stage asks for: its spec, or the first it accepts; "" for any.
func stageSpec(nt models.NewTask) string {
	if nt.Spec != "" || len(nt.Specs) == 0 {
		return nt.Spec
	}
	return nt.Specs[0]
}

// visiblePipeline loads a pipeline the caller may see; one of another project is 404.
func (h *Handler) visiblePipeline(c echo.Context, id int64) (models.PipelineRow, error) {
	p, err := h.store.PipelineByID(c.Request().Context(), id)
	if err != nil {
		return p, handlers.StoreError(err)
	}
	if !handlers.Who(c).CanSee(p.ProjectID) {
		return p, handlers.StoreError(models.ErrNotFound)
	}
	return p, nil
}

// pipelineRows lists the pipelines of the projects the caller sees, newest first.
func (h *Handler) pipelineRows(ctx context.Context, who *handlers.Principal, limit int) ([]models.PipelineRow, error) {
	return h.store.Pipelines(ctx, handlers.VisibleProjects(who), limit)
}
