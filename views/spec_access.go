package views

import "kashi/phrase"

// Policies for a project without a quota on a spec, the values of SpecAccess.Policy (those
// of models.NoQuotaAllowed and its kin).
const (
	NoQuotaAllowed = "allowed"
	NoQuotaRefused = "refused"
	NoQuotaLimit   = "limit"
)

// SpecAccess is what a project may use of one spec, as the project page and the submit form
// show it: its quota's limit, else the pools' rule for projects without a quota.
type SpecAccess struct {
	Spec string
	// Quota is true when the project has a quota on the spec (AllSpecs: its quota of all
	// specs); Limit is that quota's limit now.
	Quota, AllSpecs bool
	Limit           int
	// Policy is the rule for a project without a quota (NoQuota*), MaxGPUs its most cards
	// at once under NoQuotaLimit, Pool the pool whose setting it is.
	Policy  string
	MaxGPUs int
	Pool    string
	// InUse is the cards of the spec the project holds now, as the scheduler counts them.
	InUse int
}

// SpecAccessText says in words what the project may use of the spec.
func SpecAccessText(l phrase.Locale, a SpecAccess) string {
	switch {
	case a.AllSpecs:
		return l.T("access.quota_all", a.Spec, l.Int(a.Limit), l.Int(a.InUse))
	case a.Quota:
		return l.T("access.quota", a.Spec, l.Int(a.Limit), l.Int(a.InUse))
	case a.Policy == NoQuotaRefused:
		return l.T("access.refused", a.Spec, a.Pool)
	case a.Policy == NoQuotaLimit:
		return l.T("access.limit", a.Spec, a.Pool, l.Int(a.MaxGPUs), l.Int(a.InUse))
	}
	return l.T("access.allowed", a.Spec, l.Int(a.InUse))
}
