package rightsize

import (
	"slices"
	"strings"

	"kashi/models"
)

// Rate is the pay-as-you-go price per card-hour of spec for a project: its own price, else
// the default list's; 0 when none is set.
func Rate(prices []models.Price, spec string, projectID int64) int64 {
	var rate int64
	for _, p := range prices {
		if p.Spec == spec && (p.ProjectID == projectID || (p.ProjectID == 0 && rate == 0)) {
			rate = p.RateFen
		}
	}
	return rate
}

// Options are the specs a project's run could ask for: every spec whose card memory is known
// (mem, MiB by spec), at the project's prices, by spec so that ties go the same way each time.
func Options(mem map[string]int64, prices []models.Price, projectID int64) []Option {
	out := make([]Option, 0, len(mem))
	for spec, m := range mem {
		out = append(out, Option{Spec: spec, MemMiB: m, RateFen: Rate(prices, spec, projectID)})
	}
	slices.SortFunc(out, func(a, b Option) int { return strings.Compare(a.Spec, b.Spec) })
	return out
}
