package handlers

import "kashi/models"

// GPUsInUse is the cards each project holds now, by project name and spec, from the board's
// GPUs: counted by the spec of the card held, as the scheduler counts them against a limit.
func GPUsInUse(gpus []models.BoardGPU) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, g := range gpus {
		if g.TaskID == 0 {
			continue
		}
		if out[g.Project] == nil {
			out[g.Project] = map[string]int{}
		}
		out[g.Project][g.Spec]++
	}
	return out
}

// InUseOf is how many cards of a quota's spec its project holds now (held: by spec), of
// every spec for a quota of all specs ("").
func InUseOf(spec string, held map[string]int) int {
	if spec != "" {
		return held[spec]
	}
	n := 0
	for _, g := range held {
		n += g
	}
	return n
}
