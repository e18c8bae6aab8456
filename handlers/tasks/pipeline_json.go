package tasks

import (
	"context"
	"maps"
	"slices"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/rightsize"
)

// pipelineJSON is a pipeline with its stages as the API and the pipeline page show them:
// each stage's cards, card-hours and cost (every run, at this month's prices for its
// project), the whole pipeline's estimate and actual.
func (h *Handler) pipelineJSON(c echo.Context, p models.PipelineRow) (api.Pipeline, error) {
	ctx, now := c.Request().Context(), h.Now()
	out := pipelineFields(p)
	stages, err := h.store.PipelineStages(ctx, p.ID, now)
	if err != nil {
		return out, err
	}
	prices, err := h.store.Prices(ctx, now.Format("2006-01"))
	if err != nil {
		return out, err
	}
	for _, st := range stages {
		out.Stages = append(out.Stages, stageJSON(st, prices, p.ProjectID))
		s := out.Stages[len(out.Stages)-1]
		out.EstCardHours += s.EstCardHours
		out.CardHours += s.CardHours
		out.CostFen += s.CostFen
		out.EstCostFen += estCost(st, prices, p.ProjectID)
	}
	return out, nil
}

// pipelineFields is a pipeline's own fields, without its stages.
func pipelineFields(p models.PipelineRow) api.Pipeline {
	return api.Pipeline{ID: p.ID, Project: p.Project, Name: p.Name, Owner: p.Owner, State: p.State, Reason: p.Reason,
		Run: p.Run, SubmittedAt: p.SubmittedAt, EndedAt: p.EndedAt}
}

// stageJSON is one stage with its use priced: card-seconds × the spec's rate per card-hour,
// in whole fen.
func stageJSON(st models.StageRow, prices []models.Price, projectID int64) api.Stage {
	nt := st.Task()
	after, afterEnded := st.Parents()
	out := api.Stage{Name: st.Name, After: after, AfterEnded: afterEnded, Output: st.Output, State: st.State, Reason: st.Reason,
		Task: st.TaskID, TaskState: st.TaskState, Spec: stageSpec(nt), GPUs: nt.GPUs, Cards: st.Held, EstCardHours: nt.EstGPUHours}
	var secs int64
	for _, spec := range slices.Sorted(maps.Keys(st.Seconds)) {
		n := st.Seconds[spec]
		secs += n
		out.CostFen += (n*rightsize.Rate(prices, spec, projectID) + 1800) / 3600
	}
	out.CardHours = float64(secs) / 3600
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
