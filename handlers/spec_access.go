package handlers

import (
	"kashi/models"
	"kashi/scheduler"
	"kashi/views"
)

// SpecAccessViews shows what a project may use of each spec (models.SpecAccesses) with the
// cards of it the project holds now (use, the scheduler's count).
func SpecAccessViews(as []models.SpecAccess, use scheduler.Use) []views.SpecAccess {
	out := make([]views.SpecAccess, len(as))
	for i, a := range as {
		v := views.SpecAccess{Spec: a.Spec, Quota: a.Quota, AllSpecs: a.AllSpecs, Limit: a.Limit, InUse: use.Of(a.Spec),
			Policy: views.NoQuotaAllowed, MaxGPUs: a.Rule.MaxGPUs, Pool: a.Rule.Pool}
		switch a.Rule.Policy {
		case models.NoQuotaRefused:
			v.Policy = views.NoQuotaRefused
		case models.NoQuotaLimit:
			v.Policy = views.NoQuotaLimit
		}
		out[i] = v
	}
	return out
}
