package tasks

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/rightsize"
)

// visibleTrial loads a trial the caller may see; one of another project is answered 404.
func (h *Handler) visibleTrial(c echo.Context, id int64) (models.Trial, error) {
	tr, err := h.store.TrialByID(c.Request().Context(), id)
	if err != nil {
		return tr, handlers.StoreError(err)
	}
	if !handlers.Who(c).CanSee(tr.ProjectID) {
		return tr, handlers.StoreError(models.ErrNotFound)
	}
	return tr, nil
}

// trialJSON is trial tr with its runs measured and its proposal (rightsize.Trial), priced at
// this month's prices for its project.
func (h *Handler) trialJSON(ctx context.Context, tr models.Trial, now time.Time) (api.Trial, error) {
	runs, err := h.store.TrialRuns(ctx, tr.ID)
	if err != nil {
		return api.Trial{}, err
	}
	prices, err := h.store.Prices(ctx, now.Format("2006-01"))
	if err != nil {
		return api.Trial{}, err
	}
	out := api.Trial{ID: tr.ID, Owner: tr.Owner, Name: tr.Name, Specs: tr.SpecList(), Sizes: tr.SizeList(), BoundS: tr.BoundS,
		WorkUnits: tr.WorkUnits, FullGPUs: tr.FullGPUs, CreatedAt: tr.CreatedAt, FullTaskID: tr.FullTaskID, Runs: []api.TrialRun{}}
	for _, t := range runs {
		out.Project = t.Project
	}
	measured, err := rightsize.TrialRuns(ctx, h.store, runs, prices, now)
	if err != nil {
		return api.Trial{}, err
	}
	rep := rightsize.Trial(measured, tr.WorkUnits, tr.FullGPUs)
	out.Done = rep.Done
	for _, r := range rep.Rows {
		j := api.TrialRun{TaskID: r.TaskID, Spec: r.Spec, GPUs: r.GPUs, State: api.TaskState(r.State), RuntimeS: r.RuntimeS, OutputUnits: r.Units,
			OutputUnit: r.Unit, UnitsPerHour: r.UnitsPerHour, EfficiencyPct: r.EfficiencyPct, RateFen: r.RateFen, CostFen: r.CostFen,
			CostPerMFen: r.CostPerMFen, PeakMemMiB: r.PeakMemMiB, MeanUtilPct: r.MeanUtilPct}
		if r.HasReadings {
			j.Busy = &r.Busy
		}
		out.Runs = append(out.Runs, j)
	}
	if p := rep.Proposal; p != nil {
		out.Proposal = &api.TrialProposal{Spec: p.Spec, GPUs: p.GPUs, UnitsPerHour: p.UnitsPerHour, Projected: p.Projected,
			Scales: p.Scales, CostPerMFen: p.CostPerMFen, CardS: p.CardS, CostFen: p.CostFen}
	}
	return out, nil
}

// trialOf is the trial req asks for, its task's owner the caller: FromTask's task submitted
// again (a task the caller runs), or req.Task.
func (h *Handler) trialOf(c echo.Context, req api.TrialRequest) (models.NewTrial, error) {
	nt := models.NewTrial{Specs: req.Specs, Sizes: req.Sizes, Bound: time.Duration(min(max(req.BoundS, -1), 1<<31)) * time.Second,
		WorkUnits: req.WorkUnits, FullGPUs: req.FullGPUs}
	switch {
	case req.FromTask != 0:
		if _, err := h.runnableTask(c, req.FromTask); err != nil {
			return nt, err
		}
		t, err := h.store.TaskResubmit(c.Request().Context(), req.FromTask)
		if err != nil {
			return nt, handlers.StoreError(err)
		}
		nt.Task = t
	case req.Task != nil:
		nt.Task = newTask(*req.Task, "")
		if nt.Task.Priority == "" {
			nt.Task.Priority = models.PriorityNormal
		}
	default:
		return nt, handlers.BadRequest("task", "give from_task or task")
	}
	if err := h.canSubmit(c, nt.Task.Project); err != nil {
		return nt, err
	}
	nt.Task.Owner = handlers.Who(c).User.Name
	return nt, nil
}
