package bills

import (
	"kashi/billing"
	billsview "kashi/views/bills"
)

// stageCosts is the pipelines' stages as the bill page and the weekly report show them,
// both from billing's one computation (billing.PipelineCost).
func stageCosts(ps []billing.PipelineCost) []billsview.PipelineStages {
	var out []billsview.PipelineStages
	for _, p := range ps {
		v := billsview.PipelineStages{ID: p.PipelineID, Name: p.Pipeline, Project: p.Project, TopSpec: p.TopSpec,
			NominalS: p.NominalS, AmountFen: p.AmountFen, TopFen: p.TopSpecFen, SavingFen: p.SavingFen}
		for _, s := range p.Stages {
			v.Stages = append(v.Stages, billsview.StageCost{Stage: s.Stage, Spec: s.Spec, NominalS: s.NominalS,
				AmountFen: s.AmountFen, TopFen: s.TopSpecFen, SavingFen: s.SavingFen})
		}
		out = append(out, v)
	}
	return out
}
