package models

import (
	"slices"
	"time"
)

// The policies of a pool for the projects with no quota on its spec (PoolConfig.NoQuota).
const (
	// NoQuotaAllowed: such a project may hold any number of the spec's cards (the default).
	NoQuotaAllowed = "allowed"
	// NoQuotaRefused: such a project may hold none.
	NoQuotaRefused = "refused"
	// NoQuotaLimit: such a project may hold at most the pool's NoQuotaMaxGPUs at once.
	NoQuotaLimit = "limit"
)

// NoQuotaRule is what a project with no quota on a spec may use of it.
type NoQuotaRule struct {
	// Policy is NoQuotaAllowed, NoQuotaRefused or NoQuotaLimit.
	Policy string
	// MaxGPUs is the most cards at once under NoQuotaLimit; 0 otherwise.
	MaxGPUs int
	// Pool is the pool whose setting it is; "" for a spec no pool's setting restricts.
	Pool string
}

// Cap is the most cards the rule lets a project hold at once: -1 for any number, 0 when
// refused.
func (r NoQuotaRule) Cap() int {
	switch r.Policy {
	case NoQuotaRefused:
		return 0
	case NoQuotaLimit:
		return r.MaxGPUs
	}
	return -1
}

// stricter reports whether r lets a project hold fewer cards than o.
func (r NoQuotaRule) stricter(o NoQuotaRule) bool {
	return o.Cap() < 0 && r.Cap() >= 0 || r.Cap() >= 0 && r.Cap() < o.Cap()
}

// NoQuotaRules is the rule of each spec the pools hold, by spec: the strictest of its pools'
// settings (a refusal before any limit, a smaller limit before a larger; pools in the order
// given among equals), so that a spec in pools that differ is as closed as its most closed
// pool, wherever its cards are. A spec absent from the map is allowed, as are pools saved
// before the setting was.
func NoQuotaRules(pools []ConfiguredPool) map[string]NoQuotaRule {
	out := make(map[string]NoQuotaRule)
	for _, p := range pools {
		r := NoQuotaRule{Policy: NoQuotaAllowed}
		switch p.Config.NoQuota {
		case NoQuotaRefused:
			r = NoQuotaRule{Policy: NoQuotaRefused, Pool: p.Name}
		case NoQuotaLimit:
			r = NoQuotaRule{Policy: NoQuotaLimit, MaxGPUs: p.Config.NoQuotaMaxGPUs, Pool: p.Name}
		}
		if cur, ok := out[p.Spec]; !ok || r.stricter(cur) {
			out[p.Spec] = r
		}
	}
	return out
}

// QuotaCovers reports whether the project has a quota on spec among quotas: one of the spec
// or one of all specs, in force or not (a quota out of its dates still decides; its
// project waits). A spec not covered follows the pools' no-quota rule.
func QuotaCovers(quotas []Quota, projectID int64, spec string) bool {
	return slices.ContainsFunc(quotas, func(q Quota) bool {
		return q.ProjectID == projectID && (q.Spec == "" || q.Spec == spec)
	})
}

// checkNoQuota refuses a task that could run on no spec it accepts: each is one its project
// has no quota on, whose pools refuse projects without one or let them hold fewer cards
// than the task asks. A task that accepts any spec is checked against every spec of the
// pools; one spec left open lets it in (the scheduler keeps it off the closed ones).
func checkNoQuota(r *submitReads, project Project, nt NewTask) error {
	quotas, err := r.projectQuotas(project.ID)
	if err != nil {
		return err
	}
	field, specs := "specs", nt.Specs
	if len(specs) == 0 {
		field = "spec"
		if nt.Spec != "" {
			specs = []string{nt.Spec}
		} else if specs, err = r.allSpecs(); err != nil {
			return err
		}
	}
	if len(specs) == 0 || QuotaCovers(quotas, project.ID, "") {
		return nil
	}
	rules, err := r.noQuotaRules()
	if err != nil {
		return err
	}
	var closed error
	for _, spec := range specs {
		r := rules[spec]
		switch c := r.Cap(); {
		case QuotaCovers(quotas, project.ID, spec) || c < 0 || c >= nt.GPUs:
			return nil
		case closed != nil:
		case c == 0:
			closed = fieldErr(field, "project %q has no quota on %s, and pool %q refuses projects without one", project.Name, spec, r.Pool)
		default:
			closed = fieldErr("gpus", "project %q has no quota on %s, and pool %q lets a project without one hold at most %d cards; got %d",
				project.Name, spec, r.Pool, c, nt.GPUs)
		}
	}
	return closed
}

// SpecAccess is what a project may use of one spec: its quota's limit, or the pools' rule
// for projects without one.
type SpecAccess struct {
	Spec string
	// Quota is true when the project has a quota on the spec; Limit is then its concurrent
	// limit at the time asked (of the spec's quota, else of the quota of all specs, AllSpecs).
	Quota    bool
	AllSpecs bool
	Limit    int
	// Rule is what the spec's pools let a project without a quota use, when Quota is false.
	Rule NoQuotaRule
}

// SpecAccesses is what the project may use at now of each of specs, in their order: what the
// project page and the submit form show, by the rules the scheduler and submit apply.
func SpecAccesses(quotas []Quota, projectID int64, specs []string, rules map[string]NoQuotaRule, now time.Time) []SpecAccess {
	out := make([]SpecAccess, 0, len(specs))
	for _, spec := range specs {
		a := SpecAccess{Spec: spec}
		for _, q := range quotas {
			switch {
			case q.ProjectID != projectID:
			case q.Spec == spec:
				a.Quota, a.AllSpecs, a.Limit = true, false, q.Limit(now)
			case q.Spec == "" && !a.Quota:
				a.Quota, a.AllSpecs, a.Limit = true, true, q.Limit(now)
			}
		}
		if !a.Quota {
			a.Rule = rules[spec]
			if a.Rule.Policy == "" {
				a.Rule.Policy = NoQuotaAllowed
			}
		}
		out = append(out, a)
	}
	return out
}
