package tasks

import (
	"context"
	"time"

	"kashi/models"
	"kashi/rightsize"
)

// heldCard is a card a task held, with its 5-minute rollups over the time it held it.
type heldCard struct {
	models.TaskCard
	End     time.Time
	Rollups []models.GPURollup
}

// cardReader reads a task's cards and their rollups.
type cardReader interface {
	TaskCards(ctx context.Context, taskID int64) ([]models.TaskCard, error)
	Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
}

// heldCards reads the cards a task held or holds, each with its rollups up to now.
func (h *Handler) heldCards(ctx context.Context, id int64, now time.Time) ([]heldCard, error) {
	return heldCardsOf(ctx, h.store, id, now)
}

// heldCardsOf reads the cards task id held or holds from st, each with its rollups up to now.
func heldCardsOf(ctx context.Context, st cardReader, id int64, now time.Time) ([]heldCard, error) {
	cards, err := st.TaskCards(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]heldCard, len(cards))
	for i, c := range cards {
		out[i] = heldCard{TaskCard: c, End: now}
		if c.EndedAt != nil {
			out[i].End = *c.EndedAt
		}
		out[i].Rollups, err = st.Rollups(ctx, c.GPUID, models.Rollup5m, c.StartedAt.Add(-models.Rollup5m*time.Second), out[i].End)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// taskAdvice is the advice for the next run of an ended task from what its cards measured
// and the latest finished trial of it (rightsize.AdviseTried), priced at this month's prices for its project; nil while it runs, when
// it held no card, or when there is too little evidence.
func (h *Handler) taskAdvice(ctx context.Context, t models.TaskRow, cards []heldCard, now time.Time) (*rightsize.Advice, error) {
	if t.StartedAt == nil || t.EndedAt == nil || len(cards) == 0 {
		return nil, nil
	}
	run := measuredRun(*t.StartedAt, *t.EndedAt, cards)
	mem, err := h.store.SpecMemory(ctx)
	if err != nil {
		return nil, err
	}
	prices, err := h.store.Prices(ctx, now.Format("2006-01"))
	if err != nil {
		return nil, err
	}
	trials, err := h.store.TrialsOf(ctx, []int64{t.ID})
	if err != nil {
		return nil, err
	}
	tried, err := h.tried(ctx, trials[t.ID], prices, now)
	if err != nil {
		return nil, err
	}
	a := rightsize.AdviseTried(run, rightsize.Options(mem, prices, t.ProjectID), tried)
	if a.Kind == rightsize.KindNone {
		return nil, nil
	}
	return &a, nil
}

// measuredRun is a run from started to ended on cards, as rightsize reads it.
func measuredRun(started, ended time.Time, cards []heldCard) rightsize.Run {
	run := rightsize.Run{Spec: cards[0].Spec, RuntimeS: int64(ended.Sub(started) / time.Second)}
	for _, c := range cards {
		run.Cards = append(run.Cards, rightsize.Measure(c.Rollups))
	}
	return run
}

// tried is trial tr's runs as measured up to now at prices, for advice; none for the zero
// trial.
func (h *Handler) tried(ctx context.Context, tr models.Trial, prices []models.Price, now time.Time) (rightsize.Tried, error) {
	if tr.ID == 0 {
		return rightsize.Tried{}, nil
	}
	runs, err := h.store.TrialRuns(ctx, tr.ID)
	if err != nil {
		return rightsize.Tried{}, err
	}
	measured, err := rightsize.TrialRuns(ctx, h.store, runs, prices, now)
	if err != nil {
		return rightsize.Tried{}, err
	}
	return rightsize.Tried{ID: tr.ID, Runs: measured}, nil
}
