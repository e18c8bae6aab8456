package billing

import (
	"cmp"
	"context"
	"slices"
	"time"

	"kashi/models"
)

// PipelineCost is one pipeline's part of a bill or a weekly report, stage by stage
// (按阶段混用规格): each stage's card time and cost as its tasks' priced lines carry them, and
// what the same card time would have cost on the highest-priced spec the pipeline used in
// the period. It is a view of the lines, inside the total, never added to it.
type PipelineCost struct {
	PipelineID int64  `json:"pipeline_id"`
	Pipeline   string `json:"pipeline"`
	Project    string `json:"project"`
	// TopSpec is the spec with the highest card-hour rate among those the pipeline's lines
	// used in the period (ties by name), and TopRateFen that rate: the project's price of
	// the month.
	TopSpec    string      `json:"top_spec"`
	TopRateFen int64       `json:"top_rate_fen"`
	Stages     []StageCost `json:"stages"`
	NominalS   int64       `json:"nominal_s"`
	EffectiveS int64       `json:"effective_s"`
	AmountFen  int64       `json:"amount_fen"`
	TopSpecFen int64       `json:"top_spec_fen"`
	// SavingFen is TopSpecFen − AmountFen: what mixing specs saved (below 0 when the
	// cheaper spec cost more, e.g. beyond a reserved package of the top spec).
	SavingFen int64 `json:"saving_fen"`
}

// StageCost is one stage's card time on one spec in the period (every run's tasks): a stage
// that ran on several specs has one per spec.
type StageCost struct {
	Stage      string `json:"stage"`
	Spec       string `json:"spec"`
	NominalS   int64  `json:"nominal_s"`
	EffectiveS int64  `json:"effective_s"`
	// AmountFen is its lines' amounts; TopSpecFen the same lines priced on the pipeline's
	// TopSpec under the same plan (overflow stays overflow).
	AmountFen  int64 `json:"amount_fen"`
	TopSpecFen int64 `json:"top_spec_fen"`
	SavingFen  int64 `json:"saving_fen"`
}

// pipelineCosts adds up the priced lines of b's project that pipelines' tasks hold, by
// pipeline, stage and spec, and prices each line again on its pipeline's top spec through
// a pricer of its own (so that a per-task charge is counted once there too); nil when no
// line is a pipeline's. Lines must be in bill order (by task, spec, overflow last).
func (p *pricing) pipelineCosts(b *Bill, lines []Line, tasks map[int64]*models.LedgerTask, taskHeld map[int64]int64) ([]PipelineCost, error) {
	type stageKey struct {
		pipeline    int64
		stage, spec string
	}
	var (
		out   []PipelineCost
		at    = map[int64]int{}
		specs = map[int64][]string{}
		first = map[stageKey]int64{} // each stage's first task, which orders the stages
	)
	for _, l := range lines {
		t := tasks[l.TaskID]
		if t == nil || t.PipelineID == 0 {
			continue
		}
		if _, ok := at[t.PipelineID]; !ok {
			at[t.PipelineID] = len(out)
			out = append(out, PipelineCost{PipelineID: t.PipelineID, Pipeline: t.Pipeline, Project: b.Project})
		}
		if !slices.Contains(specs[t.PipelineID], l.Spec) {
			specs[t.PipelineID] = append(specs[t.PipelineID], l.Spec)
		}
		if k := (stageKey{t.PipelineID, t.Stage, ""}); first[k] == 0 {
			first[k] = l.TaskID
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	top, err := p.pricer(b, tasks, taskHeld)
	if err != nil {
		return nil, err
	}
	for id, ss := range specs {
		pc := &out[at[id]]
		slices.Sort(ss)
		for _, s := range ss {
			if r := top.rate(s, false); pc.TopSpec == "" || r > pc.TopRateFen {
				pc.TopSpec, pc.TopRateFen = s, r
			}
		}
	}
	stageAt := map[stageKey]int{}
	for _, l := range lines {
		t := tasks[l.TaskID]
		if t == nil || t.PipelineID == 0 {
			continue
		}
		pc := &out[at[t.PipelineID]]
		k := stageKey{t.PipelineID, t.Stage, l.Spec}
		i, ok := stageAt[k]
		if !ok {
			i = len(pc.Stages)
			stageAt[k] = i
			pc.Stages = append(pc.Stages, StageCost{Stage: t.Stage, Spec: l.Spec})
		}
		alt := top.line(&lineAcc{key: lineKey{l.TaskID, pc.TopSpec, l.Pricing == PricingOverflow}, held: l.Breakdown}).AmountFen
		st := &pc.Stages[i]
		st.NominalS += l.NominalS
		st.EffectiveS += l.EffectiveS
		st.AmountFen = AddFen(st.AmountFen, l.AmountFen)
		st.TopSpecFen = AddFen(st.TopSpecFen, alt)
	}
	for i := range out {
		pc := &out[i]
		slices.SortFunc(pc.Stages, func(x, y StageCost) int {
			return cmp.Or(cmp.Compare(first[stageKey{pc.PipelineID, x.Stage, ""}], first[stageKey{pc.PipelineID, y.Stage, ""}]),
				cmp.Compare(x.Stage, y.Stage), cmp.Compare(x.Spec, y.Spec))
		})
		for j := range pc.Stages {
			st := &pc.Stages[j]
			st.SavingFen = st.TopSpecFen - st.AmountFen
			pc.NominalS += st.NominalS
			pc.EffectiveS += st.EffectiveS
			pc.AmountFen = AddFen(pc.AmountFen, st.AmountFen)
			pc.TopSpecFen = AddFen(pc.TopSpecFen, st.TopSpecFen)
		}
		pc.SavingFen = pc.TopSpecFen - pc.AmountFen
	}
	slices.SortFunc(out, func(x, y PipelineCost) int { return cmp.Compare(x.PipelineID, y.PipelineID) })
	return out, nil
}

// PipelineBilled is each stage of one pipeline as its project's bills price it, by stage
// name: its card time and cost on every spec, added up over the bills of the months from
// from's to to's (each as ProjectBill gives it: the issued bill, else computed as of now).
// The pipeline page and its API read their figures here, so they say what the bills say:
// overflow, a reserved package and per-task charges included. Spec is left empty.
func PipelineBilled(ctx context.Context, src Source, projectID, pipelineID int64, from, to, now time.Time) (map[string]StageCost, error) {
	loc, err := Location(ctx, src)
	if err != nil {
		return nil, err
	}
	out := map[string]StageCost{}
	if to.After(now) {
		to = now
	}
	last := MonthOf(to, loc).String()
	for m := MonthOf(from, loc); m.String() <= last; m = m.Next() {
		b, err := ProjectBill(ctx, src, projectID, m.String(), now)
		if err != nil {
			return nil, err
		}
		for _, pc := range b.Pipelines {
			if pc.PipelineID != pipelineID {
				continue
			}
			for _, st := range pc.Stages {
				acc := out[st.Stage]
				acc.Stage = st.Stage
				acc.NominalS += st.NominalS
				acc.EffectiveS += st.EffectiveS
				acc.AmountFen = AddFen(acc.AmountFen, st.AmountFen)
				acc.TopSpecFen = AddFen(acc.TopSpecFen, st.TopSpecFen)
				acc.SavingFen = acc.TopSpecFen - acc.AmountFen
				out[st.Stage] = acc
			}
		}
	}
	return out, nil
}
