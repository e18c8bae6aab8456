package scheduler

import (
	"time"

	"kashi/models"
)

// QuotaStates turns stored quotas and this month's usage (card-seconds per project id and
// spec) into what Decide checks, by project name. A quota outside its dates counts as an
// exhausted budget: the contract has ended (到期) or not begun. A project may overflow when
// any of its quotas in force allows it. A quota for all specs ("") limits the project's cards
// of every spec together; its guarantee is not enforced (guarantees are per spec). A spec a
// project has no quota on (models.QuotaCovers) follows its pools' rule (rules, by spec; see
// models.NoQuotaRules): refused or limited, it is capped in NoQuotaMaxGPUs.
func QuotaStates(quotas []models.Quota, usage map[int64]map[string]int64, names map[int64]string,
	rules map[string]models.NoQuotaRule, now time.Time) map[string]QuotaState {
	out := make(map[string]QuotaState)
	for id, name := range names {
		for spec, r := range rules {
			if r.Cap() < 0 || models.QuotaCovers(quotas, id, spec) {
				continue
			}
			qs := out[name]
			if qs.NoQuotaMaxGPUs == nil {
				qs.NoQuotaMaxGPUs = map[string]int{}
			}
			qs.NoQuotaMaxGPUs[spec] = r.Cap()
			out[name] = qs
		}
	}
	for _, q := range quotas {
		name, ok := names[q.ProjectID]
		if !ok {
			continue
		}
		qs := out[name]
		used := usage[q.ProjectID][q.Spec]
		if q.Spec == "" {
			used = 0
			for _, sec := range usage[q.ProjectID] {
				used += sec
			}
		}
		exhausted := !q.Active(now) || used >= q.BudgetCardHours*3600
		if q.Spec == "" {
			qs.MaxGPUs = q.Limit(now)
			qs.MaxServiceGPUs = q.MaxServiceGPUs
			qs.BudgetExhausted = qs.BudgetExhausted || exhausted
		} else {
			if qs.MaxGPUsBySpec == nil {
				qs.MaxGPUsBySpec, qs.ExhaustedSpecs, qs.Guaranteed = map[string]int{}, map[string]bool{}, map[string]int{}
			}
			qs.MaxGPUsBySpec[q.Spec] = q.Limit(now)
			if q.MaxServiceGPUs > 0 {
				if qs.MaxServiceGPUsBySpec == nil {
					qs.MaxServiceGPUsBySpec = map[string]int{}
				}
				qs.MaxServiceGPUsBySpec[q.Spec] = q.MaxServiceGPUs
			}
			qs.ExhaustedSpecs[q.Spec] = exhausted
			if q.Active(now) {
				qs.Guaranteed[q.Spec] = q.GuaranteedGPUs
			}
		}
		qs.Overflow = qs.Overflow || (q.OverflowAllowed && q.Active(now))
		out[name] = qs
	}
	return out
}
