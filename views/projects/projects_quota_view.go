package projects

import (
	"kashi/phrase"
	"kashi/views"
)

// usePct is used as a whole percentage of limit; 0 when there is no limit.
func usePct(used, limit int) int {
	if limit <= 0 {
		return 0
	}
	return used * 100 / limit
}

// ceilingText says how far a lead approves a quota's limit, guarantee and budget (above, an
// admin), and what its spec's pools reach and have left to guarantee.
func ceilingText(l phrase.Locale, q views.QuotaView) string {
	gpus := func(n int) string { return l.Count("ctx.gpus", n) }
	return l.T("request.ceiling", specName(l, q.Spec), gpus(q.ContractMaxGPUs), gpus(q.MaxGPUs), gpus(q.ContractGuaranteedGPUs),
		gpus(q.GuaranteedGPUs), l.Int(int(q.ContractBudgetCardHours)), l.Int(int(q.BudgetCardHours))) + " " +
		l.T("request.reach", gpus(q.ReachGPUs), gpus(q.GuaranteedElsewhere), gpus(max(q.ReachGPUs-q.GuaranteedElsewhere, 0)))
}
