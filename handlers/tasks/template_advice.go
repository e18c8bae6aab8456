package tasks

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/rightsize"
	tasksview "kashi/views/tasks"
)

// templateAdviceRuns is how many of a template's latest runs its advice reads.
const templateAdviceRuns = 5

// templateAdvice is the rightsizing advice for template t's next run, from its latest ended
// runs merged so the advice fits each (rightsize.Merge) and the latest finished trial of its
// runs (rightsize.AdviseTried), priced at this month's prices of its
// project; nil with too little evidence.
func (h *Handler) templateAdvice(ctx context.Context, t models.TaskTemplate, now time.Time) (*tasksview.TemplateAdvice, error) {
	tasks, err := h.store.TemplateRuns(ctx, t.ID, templateAdviceRuns)
	if err != nil || len(tasks) == 0 {
		return nil, err
	}
	var runs []rightsize.Run
	for _, tk := range tasks {
		cards, err := heldCardsOf(ctx, h.store, tk.ID, now)
		if err != nil {
			return nil, err
		}
		if len(cards) > 0 {
			runs = append(runs, measuredRun(*tk.StartedAt, *tk.EndedAt, cards))
		}
	}
	merged, n := rightsize.Merge(runs)
	if n == 0 {
		return nil, nil
	}
	mem, err := h.store.SpecMemory(ctx)
	if err != nil {
		return nil, err
	}
	prices, err := h.store.Prices(ctx, now.In(h.Loc()).Format("2006-01"))
	if err != nil {
		return nil, err
	}
	tr, _, err := h.store.TemplateTrial(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	tried, err := h.tried(ctx, tr, prices, now)
	if err != nil {
		return nil, err
	}
	a := rightsize.AdviseTried(merged, rightsize.Options(mem, prices, t.ProjectID), tried)
	if a.Kind == rightsize.KindNone {
		return nil, nil
	}
	return &tasksview.TemplateAdvice{Runs: n, TaskAdvice: *handlers.AdviceView(&a), SubmitURL: tasksview.SubmitAdvisedURL(t.ID, a.GPUs, a.Spec)}, nil
}
