package billing

import (
	"cmp"
	"slices"
)

// TagGroup sums the bills of the projects that carry one tag. A project with several tags
// counts in each; projects without tags are in the group with Tag "".
type TagGroup struct {
	Tag        string   `json:"tag"`
	Projects   []string `json:"projects"`
	NominalS   int64    `json:"nominal_s"`
	EffectiveS int64    `json:"effective_s"`
	IdleS      int64    `json:"idle_s"`
	TotalFen   int64    `json:"total_fen"`
}

// GroupByTag groups bills by the tags each carries (Bill.Tags: an issued bill's as of its
// issue, so its month stays grouped as it was issued), tags in order, "" last.
func GroupByTag(bills []Bill) []TagGroup {
	at := map[string]int{}
	var out []TagGroup
	for _, b := range bills {
		ts := b.Tags
		if len(ts) == 0 {
			ts = []string{""}
		}
		for _, t := range slices.Compact(slices.Sorted(slices.Values(ts))) {
			i, ok := at[t]
			if !ok {
				i = len(out)
				at[t] = i
				out = append(out, TagGroup{Tag: t})
			}
			g := &out[i]
			g.Projects = append(g.Projects, b.Project)
			g.NominalS += b.NominalS
			g.EffectiveS += b.EffectiveS
			g.IdleS += b.Held.Idle
			g.TotalFen = AddFen(g.TotalFen, b.TotalFen)
		}
	}
	slices.SortFunc(out, func(a, b TagGroup) int {
		if (a.Tag == "") != (b.Tag == "") {
			return cmp.Compare(b.Tag, a.Tag) // "" last
		}
		return cmp.Compare(a.Tag, b.Tag)
	})
	return out
}
