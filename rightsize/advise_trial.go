package rightsize

import (
	"context"
	"time"

	"kashi/models"
)

// Tried is a finished trial of a task (or its template) as the advice reads it: its id and
// its runs as measured (see TrialRuns). The zero Tried is no trial.
type Tried struct {
	ID   int64
	Runs []TrialRun
}

// AdviseTried is the advice for the next run of r, as Advise gives it from r's readings
// alone, unless a finished trial of the same task measured r's own spec: then the trial's
// figures decide, since it measured what readings can only guess (how fast each spec runs
// it and how it scales), and the advice names the trial (TrialID):
//   - the cards r kept busy (all of them when r's readings are too few) are the most the
//     next run is advised, and the trial's proposal at that size (rightsize.Trial: the
//     spec cheapest per unit of output, at the largest size that scales) is what it asks;
//   - its cost is compared per unit of output, not per hour: CostPct is the proposal's cost
//     of the same output against r's spec at r's cards as the trial measured (or projected)
//     them, SavingFenPerHour what the same output would have cost less per hour r ran, and
//     TimePct how long that output takes as advised against as r ran, in percent;
//   - a proposal that costs no less per unit than what r had is KindRight: keep it.
//
// Without such a trial (none, one whose runs have not all ended, one that did not try r's
// spec or measured no output on it, or prices unknown) the advice is Advise's. A run none
// of whose cards was used stays KindUnused: no trial says why the cards sat idle. It is pure.
func AdviseTried(r Run, options []Option, tr Tried) Advice {
	a := Advise(r, options)
	if a.Kind == KindUnused || tr.ID == 0 || len(r.Cards) == 0 {
		return a
	}
	size := len(r.Cards)
	if a.Kind != KindNone {
		size = a.GPUs
	}
	rep := Trial(tr.Runs, 0, size)
	if !rep.Done || rep.Proposal == nil || rep.Proposal.CostPerMFen == nil {
		return a
	}
	measured, base, _ := scaled(rep.Rows, r.Spec)
	if len(measured) == 0 || base.RateFen <= 0 {
		return a
	}
	// As r ran: projected past the largest size tried with that size's own efficiency, which
	// is what the trial saw of r's spec at r's cards.
	p, from := rep.Proposal, len(r.Cards)
	curPerHour, _ := unitsAt(measured, measured[0], measured[len(measured)-1], from)
	var propRate int64
	for _, row := range rep.Rows {
		if row.Spec == p.Spec && row.RateFen > 0 {
			propRate = row.RateFen
		}
	}
	if curPerHour <= 0 || propRate <= 0 {
		return a
	}
	t := Advice{Kind: KindRight, Spec: r.Spec, GPUs: from, FromSpec: r.Spec, FromGPUs: from, IdleCards: a.IdleCards,
		CostPct: percentWhole, TimePct: percentWhole, TrialID: tr.ID}
	// The same output's cost: as advised, rate × cards / output per hour, against as r ran.
	before := base.RateFen * int64(from)
	costPct := mulDiv(n(propRate, int64(p.GPUs), curPerHour, percentWhole), n(before, p.UnitsPerHour))
	if (p.Spec != r.Spec || p.GPUs != from) && costPct < percentWhole {
		t.Spec, t.GPUs, t.CostPct = p.Spec, p.GPUs, int(costPct)
		t.SavingFenPerHour = before - mulDiv(n(propRate, int64(p.GPUs), curPerHour), n(p.UnitsPerHour))
		t.TimePct = int(mulDiv(n(curPerHour, percentWhole), n(p.UnitsPerHour)))
		switch smaller, fewer := t.Spec != r.Spec, t.GPUs < from; {
		case smaller && fewer:
			t.Kind = KindSmallerFewer
		case smaller:
			t.Kind = KindSmaller
		default:
			t.Kind = KindFewer
		}
	}
	// The memory the trial saw on the advised spec, against its card's.
	for _, row := range rep.Rows {
		if row.Spec == t.Spec {
			t.PeakMemMiB = max(t.PeakMemMiB, row.PeakMemMiB)
		}
	}
	if o, ok := find(options, t.Spec); ok && t.PeakMemMiB > 0 {
		t.CardMemMiB = o.MemMiB
	}
	return t
}

// TrialSource reads a trial's runs' cards and their readings; *models.Store implements it.
type TrialSource interface {
	TaskCards(ctx context.Context, taskID int64) ([]models.TaskCard, error)
	Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
}

// TrialRuns are a trial's runs (models.Store.TrialRuns) as measured up to now: each one's
// runtime, output and price at prices, and its cards over the 5-minute readings that lie
// wholly inside the run (the minutes around a short run are not its own).
func TrialRuns(ctx context.Context, src TrialSource, runs []models.TaskRow, prices []models.Price, now time.Time) ([]TrialRun, error) {
	out := make([]TrialRun, 0, len(runs))
	for _, t := range runs {
		r := TrialRun{TaskID: t.ID, Spec: t.Spec, GPUs: t.GPUs, State: t.State, Ended: t.EndedAt != nil,
			Units: t.OutputUnits, Unit: t.OutputUnit, RateFen: Rate(prices, t.Spec, t.ProjectID)}
		if t.StartedAt != nil {
			end := now
			if t.EndedAt != nil {
				end = *t.EndedAt
			}
			r.RuntimeS = int64(end.Sub(*t.StartedAt) / time.Second)
			cards, err := src.TaskCards(ctx, t.ID)
			if err != nil {
				return nil, err
			}
			for _, c := range cards {
				to := now
				if c.EndedAt != nil {
					to = *c.EndedAt
				}
				rs, err := src.Rollups(ctx, c.GPUID, models.Rollup5m, c.StartedAt.Add(-models.Rollup5m*time.Second), to)
				if err != nil {
					return nil, err
				}
				r.Cards = append(r.Cards, Measure(within(rs, c.StartedAt, to)))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// within is the 5-minute rollups that lie wholly inside [from, to], so that a short run's
// figures are not those of the minutes around it; all of them when none does.
func within(rs []models.GPURollup, from, to time.Time) []models.GPURollup {
	var out []models.GPURollup
	for _, r := range rs {
		if r.Bucket >= from.Unix() && r.Bucket+models.Rollup5m <= to.Unix() {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return rs
	}
	return out
}
