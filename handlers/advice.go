package handlers

import (
	"kashi/rightsize"
	"kashi/views"
)

// AdviceView is the advice as the task page shows it; nil without.
func AdviceView(a *rightsize.Advice) *views.TaskAdvice {
	if a == nil {
		return nil
	}
	return &views.TaskAdvice{Kind: string(a.Kind), Spec: a.Spec, FromSpec: a.FromSpec, GPUs: a.GPUs, FromGPUs: a.FromGPUs,
		IdleCards: a.IdleCards, PeakMemMiB: a.PeakMemMiB, CardMemMiB: a.CardMemMiB, CostPct: a.CostPct,
		SavingFenPerHour: a.SavingFenPerHour, Slower: a.Slower, TrialID: a.TrialID, TimePct: a.TimePct}
}
