package handlers

import (
	"context"
	"time"

	"kashi/models"
	"kashi/rightsize"
	"kashi/views"
)

// heldCard is a card a task held, with its 5-minute rollups over the time it held it.
type heldCard struct {
	models.TaskCard
	End     time.Time
	Rollups []models.GPURollup
}

// heldCards reads the cards a task held or holds, each with its rollups up to now.
func (h *Tasks) heldCards(ctx context.Context, id int64, now time.Time) ([]heldCard, error) {
	cards, err := h.store.TaskCards(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]heldCard, len(cards))
	for i, c := range cards {
		out[i] = heldCard{TaskCard: c, End: now}
		if c.EndedAt != nil {
			out[i].End = *c.EndedAt
		}
		out[i].Rollups, err = h.store.Rollups(ctx, c.GPUID, models.Rollup5m, c.StartedAt.Add(-models.Rollup5m*time.Second), out[i].End)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// taskAdvice is the advice for the next run of an ended task from what its cards measured
// (rightsize.Advise), priced at this month's prices for its project; nil while it runs, when
// it held no card, or when there is too little evidence.
func (h *Tasks) taskAdvice(ctx context.Context, t models.TaskRow, cards []heldCard, now time.Time) (*rightsize.Advice, error) {
	if t.StartedAt == nil || t.EndedAt == nil || len(cards) == 0 {
		return nil, nil
	}
	run := rightsize.Run{Spec: cards[0].Spec, RuntimeS: int64(t.EndedAt.Sub(*t.StartedAt) / time.Second)}
	for _, c := range cards {
		run.Cards = append(run.Cards, rightsize.Measure(c.Rollups))
	}
	mem, err := h.store.SpecMemory(ctx)
	if err != nil {
		return nil, err
	}
	prices, err := h.store.Prices(ctx, now.Format("2006-01"))
	if err != nil {
		return nil, err
	}
	var options []rightsize.Option
	for spec, m := range mem {
		options = append(options, rightsize.Option{Spec: spec, MemMiB: m, RateFen: specRate(prices, spec, t.ProjectID)})
	}
	a := rightsize.Advise(run, options)
	if a.Kind == rightsize.KindNone {
		return nil, nil
	}
	return &a, nil
}

// adviceView is the advice as the task page shows it; nil without.
func adviceView(a *rightsize.Advice) *views.TaskAdvice {
	if a == nil {
		return nil
	}
	return &views.TaskAdvice{Kind: string(a.Kind), Spec: a.Spec, FromSpec: a.FromSpec, GPUs: a.GPUs, FromGPUs: a.FromGPUs,
		IdleCards: a.IdleCards, PeakMemMiB: a.PeakMemMiB, CardMemMiB: a.CardMemMiB, CostPct: a.CostPct,
		SavingFenPerHour: a.SavingFenPerHour, Slower: a.Slower}
}

// specRate is the pay-as-you-go price per card-hour of spec for a project: its own price,
// else the default one; 0 when none is set.
func specRate(prices []models.Price, spec string, projectID int64) int64 {
	var rate int64
	for _, p := range prices {
		if p.Spec == spec && (p.ProjectID == projectID || (p.ProjectID == 0 && rate == 0)) {
			rate = p.RateFen
		}
	}
	return rate
}
