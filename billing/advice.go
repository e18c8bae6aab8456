package billing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"kashi/models"
	"kashi/rightsize"
)

// AdvicePerProject is how many tasks Report.Advice lists per project.
const AdvicePerProject = 3

// TaskAdvice is the rightsizing advice (rightsize.Advise) for the next run of a task that
// ended in the window, from what its cards measured over its whole run: "asked 8 A100s, used
// 2". SavingFen is what the run would have cost less as advised, at the month's prices:
// the advice's saving per hour over the run's time, rounded once.
type TaskAdvice struct {
	TaskID    int64            `json:"task_id"`
	Task      string           `json:"task"`
	Project   string           `json:"project"`
	Owner     string           `json:"owner"`
	RuntimeS  int64            `json:"runtime_s"`
	Advice    rightsize.Advice `json:"advice"`
	SavingFen int64            `json:"saving_fen"`
}

// AdviceText writes an advice for downloads: "wide: 2 × RTX4090-24G instead of 8 ×
// A100-80G" (", from trial #3" when a trial's figures gave it), or for a run that used none of its cards "idle: none of 2 × A100-80G used". A
// CSV advice row's nominal hours are the run's held card-hours and its cost the saving.
func AdviceText(a TaskAdvice) string {
	if a.Advice.Kind == rightsize.KindUnused {
		return fmt.Sprintf("%s: none of %d × %s used", a.Task, a.Advice.FromGPUs, a.Advice.FromSpec)
	}
	text := fmt.Sprintf("%s: %d × %s instead of %d × %s", a.Task, a.Advice.GPUs, a.Advice.Spec, a.Advice.FromGPUs, a.Advice.FromSpec)
	if a.Advice.TrialID > 0 {
		text += fmt.Sprintf(", from trial #%d", a.Advice.TrialID)
	}
	return text
}

// endedRun is an ended task's run as rightsize reads it, gathered by Utilization.
type endedRun struct {
	project int64
	run     rightsize.Run
}

// measureHeld is what a card measured while held: the rollups (sorted by bucket) whose
// bucket overlaps the held span.
func measureHeld(held Span, rs []models.GPURollup) rightsize.Card {
	lo := sort.Search(len(rs), func(i int) bool { return rs[i].Bucket+models.Rollup5m > held.Start })
	hi := sort.Search(len(rs), func(i int) bool { return rs[i].Bucket >= held.End })
	if lo >= hi {
		return rightsize.Card{}
	}
	return rightsize.Measure(rs[lo:hi])
}

// adviseRuns fills r.Advice from the ended runs and the trials of their tasks: per project, the tasks whose advice changes
// their spec or card count, the largest saving first (then the most idle cards, then task
// id), at most AdvicePerProject each. options are the specs a project's runs could ask for.
func adviseRuns(r *Report, runs map[int64]*endedRun, tasks map[int64]*models.LedgerTask, projects map[int64]string,
	options func(project int64) []rightsize.Option, trials map[int64]rightsize.Tried) {
	out := []TaskAdvice{}
	for id, e := range runs {
		a := rightsize.AdviseTried(e.run, options(e.project), trials[id])
		if a.Kind == rightsize.KindNone || a.Kind == rightsize.KindRight {
			continue
		}
		t := tasks[id]
		out = append(out, TaskAdvice{TaskID: id, Task: t.Name, Project: projectName(projects, e.project), Owner: t.Owner,
			RuntimeS: e.run.RuntimeS, Advice: a, SavingFen: Amount(e.run.RuntimeS, a.SavingFenPerHour)})
	}
	slices.SortFunc(out, func(a, b TaskAdvice) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(b.SavingFen, a.SavingFen),
			cmp.Compare(b.Advice.IdleCards, a.Advice.IdleCards), cmp.Compare(a.TaskID, b.TaskID))
	})
	kept := out[:0]
	for i, a := range out {
		if i < AdvicePerProject || out[i-AdvicePerProject].Project != a.Project {
			kept = append(kept, a)
		}
	}
	r.Advice = kept
}

// specOptions returns, per project, the specs its runs could ask for at the month's prices.
func specOptions(ctx context.Context, src Source, month Month) (func(project int64) []rightsize.Option, error) {
	mem, err := src.SpecMemory(ctx)
	if err != nil {
		return nil, err
	}
	prices, err := src.Prices(ctx, month.String())
	if err != nil {
		return nil, err
	}
	byProject := map[int64][]rightsize.Option{}
	return func(project int64) []rightsize.Option {
		o, ok := byProject[project]
		if !ok {
			o = rightsize.Options(mem, prices, project)
			byProject[project] = o
		}
		return o
	}, nil
}

// weekTrials is, for each task of tasks that ended in win, the latest finished trial of it
// (models.Store.TrialsOf), measured up to now at month's prices.
func weekTrials(ctx context.Context, src Source, tasks []models.LedgerTask, win Span, month Month, now time.Time) (map[int64]rightsize.Tried, error) {
	var ids []int64
	for i := range tasks {
		if endedIn(&tasks[i], win) {
			ids = append(ids, tasks[i].ID)
		}
	}
	of, err := src.TrialsOf(ctx, ids)
	if err != nil || len(of) == 0 {
		return nil, err
	}
	prices, err := src.Prices(ctx, month.String())
	if err != nil {
		return nil, err
	}
	out := make(map[int64]rightsize.Tried, len(of))
	measured := map[int64]rightsize.Tried{}
	for id, tr := range of {
		m, ok := measured[tr.ID]
		if !ok {
			runs, err := src.TrialRuns(ctx, tr.ID)
			if err != nil {
				return nil, err
			}
			tried, err := rightsize.TrialRuns(ctx, src, runs, prices, now)
			if err != nil {
				return nil, err
			}
			m = rightsize.Tried{ID: tr.ID, Runs: tried}
			measured[tr.ID] = m
		}
		out[id] = m
	}
	return out, nil
}
