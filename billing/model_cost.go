package billing

import (
	"cmp"
	"slices"

	"kashi/models"
)

// ModelCost is one inference service's part of a bill: its replicas' lines added up, so
// what each model served costs is seen apart. It is a view of the lines, inside the total,
// never added to it.
type ModelCost struct {
	ServiceID  int64  `json:"service_id"`
	Service    string `json:"service"`
	Model      string `json:"model"`
	NominalS   int64  `json:"nominal_s"`
	EffectiveS int64  `json:"effective_s"`
	// IdleS is the seconds the service's cards were held with no work (its lines' Idle).
	IdleS     int64 `json:"idle_s"`
	AmountFen int64 `json:"amount_fen"`
}

// modelCosts adds up the lines of the services' replicas by service, by model then
// service; nil when the bill has none.
func modelCosts(lines []Line, tasks map[int64]*models.LedgerTask) []ModelCost {
	var out []ModelCost
	at := map[int64]int{}
	for _, l := range lines {
		t := tasks[l.TaskID]
		if t == nil || t.ServiceID == 0 {
			continue
		}
		i, ok := at[t.ServiceID]
		if !ok {
			i = len(out)
			at[t.ServiceID] = i
			out = append(out, ModelCost{ServiceID: t.ServiceID, Service: t.Name, Model: t.Model})
		}
		m := &out[i]
		m.NominalS += l.NominalS
		m.EffectiveS += l.EffectiveS
		m.IdleS += l.Idle
		m.AmountFen += l.AmountFen
	}
	slices.SortFunc(out, func(a, b ModelCost) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Service, b.Service), cmp.Compare(a.ServiceID, b.ServiceID))
	})
	return out
}
