package scaler

import "kashi/scheduler"

// The demand rule, shared by the server's scaling loop and replay.

// DemandOf says whether a task waiting for reason counts as demand for more machines, and
// whether it is quota-blocked: tasks waiting for cards count; tasks waiting for quota count
// as quota-blocked (they never trigger a scale-up alone); others (data not ready, off-peak
// only, just submitted) do not.
func DemandOf(r scheduler.Reason) (counts, quotaBlocked bool) {
	switch r {
	case scheduler.ReasonNoFreeGPUs, scheduler.ReasonBehind, scheduler.ReasonNoSuchCapacity:
		return true, false
	case scheduler.ReasonQuota:
		return true, true
	}
	return false, false
}

// PoolRef is a managed pool as the demand rule sees it.
type PoolRef struct {
	Name    string
	Spec    string
	AnySpec bool
}

// DemandPool is the index in pools of the pool a task of spec counts against: the first pool
// by name of that spec, or for a task of any spec (spec "") the first by name that takes any
// spec; −1 when none does.
func DemandPool(pools []PoolRef, spec string) int {
	best := -1
	for i, p := range pools {
		if (spec != "" && p.Spec != spec) || (spec == "" && !p.AnySpec) {
			continue
		}
		if best < 0 || p.Name < pools[best].Name {
			best = i
		}
	}
	return best
}
