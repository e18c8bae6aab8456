package billing

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"kashi/models"
	"kashi/rightsize"
)

// Week is an ISO 8601 week ("2026-W10"): Monday 00:00 to the next Monday 00:00 in the
// billing time zone.
type Week struct {
	Year, Week int
}

// ParseWeek reads "YYYY-Www". A week the year does not have ("2026-W53") is an error.
func ParseWeek(s string) (Week, error) {
	bad := fmt.Errorf("billing: week %q is not YYYY-Www", s)
	if len(s) != 8 || s[4] != '-' || s[5] != 'W' {
		return Week{}, bad
	}
	for _, c := range s[:4] + s[6:] {
		if c < '0' || c > '9' {
			return Week{}, bad
		}
	}
	y, _ := strconv.Atoi(s[:4])
	n, _ := strconv.Atoi(s[6:])
	w := Week{y, n}
	if n < 1 || n > 53 || WeekOf(w.monday(time.UTC), time.UTC) != w {
		return Week{}, bad
	}
	return w, nil
}

// WeekOf is the ISO week that holds t in loc.
func WeekOf(t time.Time, loc *time.Location) Week {
	y, n := t.In(loc).ISOWeek()
	return Week{y, n}
}

// String is "YYYY-Www".
func (w Week) String() string { return fmt.Sprintf("%04d-W%02d", w.Year, w.Week) }

// monday is the local midnight that begins the week in loc. Week 1 holds 4 January.
func (w Week) monday(loc *time.Location) time.Time {
	jan4 := time.Date(w.Year, time.January, 4, 0, 0, 0, 0, loc)
	sinceMonday := (int(jan4.Weekday()) + 6) % 7
	return time.Date(w.Year, time.January, 4-sinceMonday+7*(w.Week-1), 0, 0, 0, 0, loc)
}

// Bounds returns the week's period [from, to) in UTC.
func (w Week) Bounds(loc *time.Location) (from, to time.Time) {
	m := w.monday(loc)
	return m.UTC(), time.Date(m.Year(), m.Month(), m.Day()+7, 0, 0, 0, 0, loc).UTC()
}

// Prev is the week before w.
func (w Week) Prev() Week { return WeekOf(w.monday(time.UTC).AddDate(0, 0, -7), time.UTC) }

// Next is the week after w.
func (w Week) Next() Week { return WeekOf(w.monday(time.UTC).AddDate(0, 0, 7), time.UTC) }

// CheckWeek parses week and refuses a week that has not begun by now; errors are
// *models.FieldError on "week".
func CheckWeek(week string, loc *time.Location, now time.Time) (Week, error) {
	w, err := ParseWeek(week)
	if err != nil {
		return Week{}, &models.FieldError{Field: "week", Msg: "must be an ISO week as YYYY-Www, e.g. 2026-W10"}
	}
	if from, _ := w.Bounds(loc); from.After(now) {
		return Week{}, &models.FieldError{Field: "week", Msg: week + " is in the future"}
	}
	return w, nil
}

// WindowInput is everything a utilization report over a window [From, To) is computed
// from. LoadWindow fills it from the store; tests build it by hand.
type WindowInput struct {
	From, To time.Time
	// AsOf cuts open allocations (the window's end at the latest), as Input.AsOf does.
	AsOf     time.Time
	Projects []models.Project
	// Only limits the report to these projects; nil means every project, and then each
	// node's provisioned time that no task held is reported too.
	Only map[int64]bool
	// Allocations overlap the window; Tasks are theirs; Readings as Input.Readings.
	Allocations []models.LedgerAllocation
	Tasks       []models.LedgerTask
	Readings    Readings
	// Nodes name the nodes and give lost nodes' last-seen time.
	Nodes []models.LedgerNode
	// Serving classes services' card time, as Input.Serving; it must reach back to the
	// earliest start of the allocations, as Readings does.
	Serving models.ServiceServing
	// Templates name the templates the tasks came from.
	Templates []models.LedgerTemplate
	// Unmanaged are the uses of GPUs by processes of no task, as Input.Unmanaged.
	Unmanaged []models.UnmanagedSpan
	// SpecOptions are the specs a project's runs could ask for, priced, for the rightsizing
	// advice (Report.Advice); nil gives none. The advice needs the cards' peaks in Readings
	// (models.Store.LedgerPeakReadings).
	SpecOptions func(project int64) []rightsize.Option
	// Trials are, by task id, the latest finished trial of the task (or its template), as
	// measured, whose figures the advice uses in preference to the readings
	// (rightsize.AdviseTried); nil gives none.
	Trials map[int64]rightsize.Tried
	// Prices, Plans and Quotas are the month's (of the window's start) that price the
	// pipelines' stages as the bill prices its lines (Report.Pipelines); without them the
	// stages' card time rates 0.
	Prices []models.Price
	Plans  []models.BillingPlan
	Quotas []models.Quota
}

// Report is the utilization of a window: held (nominal) against effective card time and
// its classes, per project, node and spec, the tasks that left most cards idle, and card
// time per output unit.
type Report struct {
	Week     string    `json:"week,omitempty"`
	TimeZone string    `json:"time_zone,omitempty"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	AsOf     time.Time `json:"as_of"`
	Total    Usage     `json:"total"`
	Projects []Usage   `json:"projects"`
	Nodes    []Usage   `json:"nodes"`
	Specs    []Usage   `json:"specs"`
	// TopIdle are the tasks with the most idle card time in the window, most first, at
	// most TopIdleTasks.
	TopIdle []IdleTask `json:"top_idle"`
	// OutputProjects and OutputTags are the card time per output unit of the tasks that
	// ended in the window having reported output, per project and per model tag (ModelTag).
	OutputProjects []OutputCost `json:"output_projects"`
	OutputTags     []OutputCost `json:"output_tags"`
	// Misses are, per project, the tasks that ended in the window whose estimate missed
	// their actual card time the most, by project then miss (largest first), at most
	// MissesPerProject each.
	Misses []EstimateMiss `json:"estimate_misses"`
	// Templates are the card time of the tasks submitted from each template, by project and
	// template name; WeekReport prices them (CostFen).
	Templates []TemplateUsage `json:"templates"`
	// Models are the card time of each inference service in the window, by model tag and
	// service; WeekReport prices them like Templates.
	Models []ModelUsage `json:"models"`
	// Advice is, per project, the tasks ended in the window whose next run could ask for
	// fewer or cheaper cards, the biggest savings first (see TaskAdvice); empty without
	// WindowInput.SpecOptions.
	Advice []TaskAdvice `json:"advice"`
	// Reruns are, per project by name, the card time in the window lost to reruns (the
	// Rerun class: Runs counts the tasks rerun, NominalS and SpecS their rerun seconds);
	// WeekReport prices them like Templates. Empty without reruns.
	Reruns []GroupUsage `json:"reruns"`
	// Trials are, per project by name, the card time in the window of trials' runs (the
	// Trial class: Runs counts the runs); WeekReport prices them like Reruns. Empty without
	// trials.
	Trials []GroupUsage `json:"trials"`
	// Pipelines are, per project by name then pipeline, the window's card time of the
	// pipelines' stage tasks by stage and spec, priced as the bill prices its lines, beside
	// what it would have cost on each pipeline's highest-priced spec (see PipelineCost).
	Pipelines []PipelineCost `json:"pipelines"`
}

// GroupUsage is the card time in the window of a group of a project's tasks: how many held
// cards (Runs), their held and effective card time, per spec, and what that card time costs
// as the bill's pricing prices it on its own (QuoteTask per spec, without the month's
// package or overflow split).
type GroupUsage struct {
	Project    string `json:"project"`
	ProjectID  int64  `json:"-"`
	Runs       int    `json:"runs"`
	NominalS   int64  `json:"nominal_s"`
	EffectiveS int64  `json:"effective_s"`
	// SpecS is the held card-seconds per spec.
	SpecS        map[string]int64 `json:"spec_s"`
	CostFen      int64            `json:"cost_fen"`
	MissingPrice bool             `json:"missing_price,omitempty"`
}

// add counts an allocation's card time b of spec, and its task's run once.
func (g *GroupUsage) add(first bool, spec string, b Breakdown) {
	if first {
		g.Runs++
	}
	g.NominalS += b.Nominal()
	g.EffectiveS += b.Effective()
	g.SpecS[spec] += b.Nominal()
}

// TemplateUsage is the card time in the window of the tasks submitted from one template.
type TemplateUsage struct {
	TemplateID int64  `json:"template_id"`
	Template   string `json:"template"`
	GroupUsage
}

// ModelUsage is the card time in the window of one inference service's replicas (Runs
// counts them), under its model tag.
type ModelUsage struct {
	ServiceID int64  `json:"service_id"`
	Service   string `json:"service"`
	Model     string `json:"model"`
	GroupUsage
}

// TopIdleTasks is how many tasks Report.TopIdle lists.
const TopIdleTasks = 10

// MissesPerProject is how many tasks Report.Misses lists per project.
const MissesPerProject = 3

// EstimateMiss is a task's estimated card time against its actual, whole task (not only
// the window's part). MissS = ActualS − EstimatedS: positive when it took more than
// estimated.
type EstimateMiss struct {
	TaskID     int64  `json:"task_id"`
	Task       string `json:"task"`
	Project    string `json:"project"`
	Owner      string `json:"owner"`
	EstimatedS int64  `json:"estimated_s"`
	ActualS    int64  `json:"actual_s"`
	MissS      int64  `json:"miss_s"`
}

// Usage is the card time of one project, node or spec in the window, classified as bills
// classify it: the Breakdown's classes add up to NominalS.
type Usage struct {
	Key string `json:"key"`
	Breakdown
	NominalS   int64 `json:"nominal_s"`
	EffectiveS int64 `json:"effective_s"`
	// WastedS is interrupted tasks' lost work (see Wasted); it overlaps the classes.
	WastedS int64 `json:"wasted_s"`
	// ProvisionedS and UnheldS are a node's GPU seconds provisioned in the window and those
	// no task held; reported for nodes when the report covers every project.
	ProvisionedS int64 `json:"provisioned_s,omitempty"`
	UnheldS      int64 `json:"unheld_s,omitempty"`
	// UnmanagedS is the part of UnheldS that processes of no task used (unmanaged use).
	UnmanagedS int64 `json:"unmanaged_s,omitempty"`
}

// IdleTask is one task's card time in the window, for the list of the most idle.
type IdleTask struct {
	TaskID  int64  `json:"task_id"`
	Task    string `json:"task"`
	Project string `json:"project"`
	Owner   string `json:"owner"`
	Spec    string `json:"spec"`
	GPUs    int    `json:"gpus"`
	// Ending is how the task ended; "" while it runs.
	Ending string `json:"ending"`
	Breakdown
	NominalS   int64 `json:"nominal_s"`
	EffectiveS int64 `json:"effective_s"`
	WastedS    int64 `json:"wasted_s"`
}

// OutputCost is what the tasks of a project or model tag spent for their output: whole
// tasks (all of each task's card time, not only the window's part) that ended in the window
// with output units reported.
type OutputCost struct {
	Key        string `json:"key"`
	Tasks      int    `json:"tasks"`
	Units      int64  `json:"output_units"`
	NominalS   int64  `json:"nominal_s"`
	EffectiveS int64  `json:"effective_s"`
}

// NominalPerUnitS is the held card-seconds per output unit, rounded half up.
func (o OutputCost) NominalPerUnitS() int64 { return perUnit(o.NominalS, o.Units) }

// EffectivePerUnitS is the active card-seconds per output unit, rounded half up.
func (o OutputCost) EffectivePerUnitS() int64 { return perUnit(o.EffectiveS, o.Units) }

func perUnit(s, units int64) int64 {
	if units <= 0 {
		return 0
	}
	return (s + units/2) / units
}

// ModelTag is the model a task works on, for cost per output unit: tasks carry no tag of
// their own, so it is read from the task's name — the part before the first "/" or ":"
// ("llama-7b/sft-r3" → "llama-7b", "qwen:eval" → "qwen"), else the whole name less a
// trailing run number ("sft-run-12" → "sft-run", "pretrain_3" → "pretrain").
func ModelTag(name string) string {
	if i := strings.IndexAny(name, "/:"); i > 0 {
		return name[:i]
	}
	t := strings.TrimRight(name, "0123456789")
	if t != name {
		t = strings.TrimRight(t, "-_. #")
	}
	if t == "" {
		return name
	}
	return t
}

// usageSet sums usage by key.
type usageSet map[string]*Usage

func (s usageSet) add(key string, b Breakdown, wasted int64) *Usage {
	u := s[key]
	if u == nil {
		u = &Usage{Key: key}
		s[key] = u
	}
	u.Breakdown.Add(b)
	u.WastedS += wasted
	return u
}

// sorted returns the usages by key, with NominalS and EffectiveS filled.
func (s usageSet) sorted() []Usage {
	out := make([]Usage, 0, len(s))
	for _, u := range s {
		u.NominalS, u.EffectiveS = u.Nominal(), u.Effective()
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b Usage) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// Utilization computes the report of the window. It classifies each allocation's held
// seconds as Compute does for a month (by its GPU's readings, a service replica's by what
// its service served), so that a report over a month gives
// the month's bills' card time. It is pure.
func Utilization(in WindowInput) (Report, error) {
	if in.AsOf.IsZero() || !in.To.After(in.From) {
		return Report{}, errors.New("billing: utilization: a window and an as-of time are required")
	}
	win := Span{in.From.Unix(), in.To.Unix()}
	asOf := min(in.AsOf.Unix(), win.End)
	r := Report{From: in.From.UTC(), To: in.To.UTC(), AsOf: time.Unix(asOf, 0).UTC(), Advice: []TaskAdvice{}}
	runs := map[int64]*endedRun{}
	nodes := make(map[int64]models.LedgerNode, len(in.Nodes))
	for _, n := range in.Nodes {
		nodes[n.ID] = n
	}
	tasks := make(map[int64]*models.LedgerTask, len(in.Tasks))
	for i := range in.Tasks {
		tasks[in.Tasks[i].ID] = &in.Tasks[i]
	}
	projects := make(map[int64]string, len(in.Projects))
	for _, p := range in.Projects {
		projects[p.ID] = p.Name
	}
	// Each allocation's seconds in the window and, for tasks that ended in it, over its
	// whole span (for output and estimate figures).
	classes, wholes := make([]Breakdown, len(in.Allocations)), make([]Breakdown, len(in.Allocations))
	cards := make([]rightsize.Card, len(in.Allocations))
	err := eachClassified(in.Allocations, nodes, asOf, in.Readings, func(i int, held Span, rs []models.GPURollup) {
		a := &in.Allocations[i]
		if in.Only != nil && !in.Only[a.ProjectID] {
			return
		}
		if t := tasks[a.TaskID]; t != nil && endedIn(t, win) {
			wholes[i] = classifyHeld(a, held, held, rs, in.Serving)
			cards[i] = measureHeld(held, rs)
		}
		classes[i] = classifyHeld(a, held, win, rs, in.Serving)
	})
	if err != nil {
		return Report{}, err
	}
	templateOf := make(map[int64]models.LedgerTemplate, len(in.Templates))
	for _, t := range in.Templates {
		templateOf[t.TaskID] = t
	}
	byTemplate := map[int64]*TemplateUsage{}
	byService := map[int64]*ModelUsage{}
	byRerun, rerun := map[int64]*GroupUsage{}, map[int64]bool{}
	byTrial, tried := map[int64]*GroupUsage{}, map[int64]bool{}
	ran, served := map[int64]bool{}, map[int64]bool{}
	byProject, byNode, bySpec := usageSet{}, usageSet{}, usageSet{}
	perTask := map[int64]*IdleTask{}
	whole := map[int64]*Breakdown{}
	heldByGPU := map[int64][]Span{}
	stageLines := map[lineKey]*lineAcc{}
	for i, a := range in.Allocations {
		if in.Only != nil && !in.Only[a.ProjectID] {
			continue
		}
		t := tasks[a.TaskID]
		held := heldSpan(&a, nodes, asOf)
		if t != nil && endedIn(t, win) {
			w := whole[a.TaskID]
			if w == nil {
				w = &Breakdown{}
				whole[a.TaskID] = w
			}
			w.Add(wholes[i])
			e := runs[a.TaskID]
			if e == nil {
				e = &endedRun{project: a.ProjectID, run: rightsize.Run{Spec: a.Spec}}
				runs[a.TaskID] = e
			}
			e.run.Cards = append(e.run.Cards, cards[i])
			e.run.RuntimeS = max(e.run.RuntimeS, held.Seconds())
		}
		b := classes[i]
		if b.Nominal() == 0 {
			continue
		}
		wasted := wastedOf(&a, b, held, win, t)
		heldByGPU[a.GPUID] = append(heldByGPU[a.GPUID], held.Clip(win))
		r.Total.Add(b)
		r.Total.WastedS += wasted
		byProject.add(projectName(projects, a.ProjectID), b, wasted)
		byNode.add(nodeName(nodes, a.NodeID), b, wasted)
		bySpec.add(a.Spec, b, wasted)
		it := perTask[a.TaskID]
		if it == nil {
			it = &IdleTask{TaskID: a.TaskID, Project: projectName(projects, a.ProjectID), Spec: a.Spec}
			if t != nil {
				it.Task, it.Owner, it.GPUs, it.Ending = t.Name, t.Owner, t.GPUs, t.Ending
			}
			perTask[a.TaskID] = it
		}
		it.Breakdown.Add(b)
		it.WastedS += wasted
		if tpl, ok := templateOf[a.TaskID]; ok {
			u := byTemplate[tpl.TemplateID]
			if u == nil {
				u = &TemplateUsage{TemplateID: tpl.TemplateID, Template: tpl.Template, GroupUsage: newGroup(a.ProjectID, projects)}
				byTemplate[tpl.TemplateID] = u
			}
			u.add(!ran[a.TaskID], a.Spec, b)
			ran[a.TaskID] = true
		}
		if t != nil && t.PipelineID != 0 {
			k := lineKey{a.TaskID, a.Spec, a.Overflow}
			la := stageLines[k]
			if la == nil {
				la = &lineAcc{key: k, project: a.ProjectID}
				stageLines[k] = la
			}
			la.held.Add(b)
		}
		if b.Rerun > 0 {
			g := byRerun[a.ProjectID]
			if g == nil {
				g = new(newGroup(a.ProjectID, projects))
				byRerun[a.ProjectID] = g
			}
			g.add(!rerun[a.TaskID], a.Spec, Breakdown{Rerun: b.Rerun})
			rerun[a.TaskID] = true
		}
		if b.Trial > 0 {
			g := byTrial[a.ProjectID]
			if g == nil {
				g = new(newGroup(a.ProjectID, projects))
				byTrial[a.ProjectID] = g
			}
			g.add(!tried[a.TaskID], a.Spec, Breakdown{Trial: b.Trial})
			tried[a.TaskID] = true
		}
		if t != nil && t.ServiceID != 0 {
			u := byService[t.ServiceID]
			if u == nil {
				u = &ModelUsage{ServiceID: t.ServiceID, Service: t.Name, Model: t.Model, GroupUsage: newGroup(a.ProjectID, projects)}
				byService[t.ServiceID] = u
			}
			u.add(!served[a.TaskID], a.Spec, b)
			served[a.TaskID] = true
		}
	}
	r.Total.NominalS, r.Total.EffectiveS = r.Total.Nominal(), r.Total.Effective()
	if in.Only == nil {
		used := unmanagedByGPU(in.Unmanaged)
		for _, n := range in.Nodes {
			var prov, unheld, unmanaged int64
			for _, g := range n.GPUIDs {
				t := gpuTime(n, heldByGPU[g], used[g], Span{win.Start, asOf})
				p, idle, um := t.provisioned, t.idle, t.unmanaged
				prov += p
				unheld += idle + um
				unmanaged += um
			}
			if prov > 0 {
				u := byNode.add(nodeName(nodes, n.ID), Breakdown{}, 0)
				u.ProvisionedS, u.UnheldS, u.UnmanagedS = u.ProvisionedS+prov, u.UnheldS+unheld, u.UnmanagedS+unmanaged
				r.Total.ProvisionedS += prov
				r.Total.UnheldS += unheld
				r.Total.UnmanagedS += unmanaged
			}
		}
	}
	r.Projects, r.Nodes, r.Specs = byProject.sorted(), byNode.sorted(), bySpec.sorted()
	r.TopIdle = topIdle(perTask)
	r.OutputProjects, r.OutputTags = outputCosts(whole, tasks, projects)
	r.Misses = estimateMisses(whole, tasks, projects)
	if in.SpecOptions != nil {
		adviseRuns(&r, runs, tasks, projects, in.SpecOptions, in.Trials)
	}
	for _, u := range byTemplate {
		r.Templates = append(r.Templates, *u)
	}
	slices.SortFunc(r.Templates, func(a, b TemplateUsage) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.Template, b.Template), cmp.Compare(a.TemplateID, b.TemplateID))
	})
	r.Models = make([]ModelUsage, 0, len(byService))
	for _, u := range byService {
		r.Models = append(r.Models, *u)
	}
	slices.SortFunc(r.Models, func(a, b ModelUsage) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Service, b.Service), cmp.Compare(a.ServiceID, b.ServiceID))
	})
	r.Reruns = make([]GroupUsage, 0, len(byRerun))
	for _, g := range byRerun {
		r.Reruns = append(r.Reruns, *g)
	}
	slices.SortFunc(r.Reruns, func(a, b GroupUsage) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.ProjectID, b.ProjectID))
	})
	r.Trials = make([]GroupUsage, 0, len(byTrial))
	for _, g := range byTrial {
		r.Trials = append(r.Trials, *g)
	}
	slices.SortFunc(r.Trials, func(a, b GroupUsage) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.ProjectID, b.ProjectID))
	})
	if r.Pipelines, err = windowPipelines(in, stageLines, tasks, whole, projects); err != nil {
		return Report{}, err
	}
	return r, nil
}

// windowPipelines prices the window's lines of pipelines' stage tasks as a bill of the
// window would (the bill's line pricing under in's prices, plans and quotas; a per-task
// charge in the window its task ended) and adds them up by stage (pipelineCosts), by
// project name then pipeline.
func windowPipelines(in WindowInput, accs map[lineKey]*lineAcc, tasks map[int64]*models.LedgerTask, whole map[int64]*Breakdown, projects map[int64]string) ([]PipelineCost, error) {
	out := []PipelineCost{}
	if len(accs) == 0 {
		return out, nil
	}
	byProject := map[int64][]*lineAcc{}
	for _, la := range accs {
		byProject[la.project] = append(byProject[la.project], la)
	}
	taskHeld := make(map[int64]int64, len(whole))
	for id, w := range whole {
		taskHeld[id] = w.Nominal()
	}
	p := newPricing(in.Prices, in.Plans, in.Quotas, nil)
	for _, pid := range slices.Sorted(maps.Keys(byProject)) {
		ls := byProject[pid]
		slices.SortFunc(ls, func(x, y *lineAcc) int {
			return cmp.Or(cmp.Compare(x.key.task, y.key.task), strings.Compare(x.key.spec, y.key.spec),
				boolCmp(x.key.overflow, y.key.overflow))
		})
		b := &Bill{ProjectID: pid, Project: projectName(projects, pid)}
		bl, err := p.pricer(b, tasks, taskHeld)
		if err != nil {
			return nil, err
		}
		lines := make([]Line, len(ls))
		for i, la := range ls {
			lines[i] = bl.line(la)
		}
		pcs, err := p.pipelineCosts(b, lines, tasks, taskHeld)
		if err != nil {
			return nil, err
		}
		out = append(out, pcs...)
	}
	slices.SortStableFunc(out, func(x, y PipelineCost) int { return cmp.Compare(x.Project, y.Project) })
	return out, nil
}

// newGroup is an empty group of the project's tasks.
func newGroup(project int64, projects map[int64]string) GroupUsage {
	return GroupUsage{ProjectID: project, Project: projectName(projects, project), SpecS: map[string]int64{}}
}

// priceGroups prices the report's template, model, rerun and trial groups' card time per spec through
// the bill's own pricing for their project under the month's prices and plans.
func priceGroups(ctx context.Context, src Source, r *Report, month Month) error {
	var groups []*GroupUsage
	for i := range r.Templates {
		groups = append(groups, &r.Templates[i].GroupUsage)
	}
	for i := range r.Models {
		groups = append(groups, &r.Models[i].GroupUsage)
	}
	for i := range r.Reruns {
		groups = append(groups, &r.Reruns[i])
	}
	for i := range r.Trials {
		groups = append(groups, &r.Trials[i])
	}
	if len(groups) == 0 {
		return nil
	}
	prices, err := src.Prices(ctx, month.String())
	if err != nil {
		return err
	}
	plans, err := src.BillingPlans(ctx, month.String())
	if err != nil {
		return err
	}
	quotas := map[int64][]models.Quota{}
	for _, u := range groups {
		q, ok := quotas[u.ProjectID]
		if !ok {
			if q, err = src.Quotas(ctx, u.ProjectID); err != nil {
				return err
			}
			quotas[u.ProjectID] = q
		}
		for _, spec := range slices.Sorted(maps.Keys(u.SpecS)) {
			quote, err := QuoteTask(QuoteInput{ProjectID: u.ProjectID, Spec: spec, CardSeconds: u.SpecS[spec],
				Prices: prices, Plans: plans, Quotas: q})
			if err != nil {
				return err
			}
			u.CostFen += quote.Line.AmountFen
			u.MissingPrice = u.MissingPrice || quote.MissingPrice
		}
	}
	return nil
}

// estimateMisses lists, per project, the tasks with an estimate whose whole card time
// missed it the most (by the size of the miss, ties by task id), at most MissesPerProject.
func estimateMisses(whole map[int64]*Breakdown, tasks map[int64]*models.LedgerTask, projects map[int64]string) []EstimateMiss {
	out := []EstimateMiss{}
	for id, b := range whole {
		t := tasks[id]
		if t.EstimatedS <= 0 {
			continue
		}
		actual := b.Nominal()
		out = append(out, EstimateMiss{TaskID: id, Task: t.Name, Project: projectName(projects, t.ProjectID), Owner: t.Owner,
			EstimatedS: t.EstimatedS, ActualS: actual, MissS: actual - t.EstimatedS})
	}
	abs := func(x int64) int64 { return max(x, -x) }
	slices.SortFunc(out, func(a, b EstimateMiss) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(abs(b.MissS), abs(a.MissS)), cmp.Compare(a.TaskID, b.TaskID))
	})
	kept := out[:0]
	for i, m := range out {
		if i < MissesPerProject || out[i-MissesPerProject].Project != m.Project {
			kept = append(kept, m)
		}
	}
	return kept
}

// topIdle lists the tasks with idle seconds, most first (ties by task id), at most
// TopIdleTasks.
func topIdle(perTask map[int64]*IdleTask) []IdleTask {
	out := []IdleTask{}
	for _, it := range perTask {
		if it.Idle > 0 {
			it.NominalS, it.EffectiveS = it.Nominal(), it.Effective()
			out = append(out, *it)
		}
	}
	slices.SortFunc(out, func(a, b IdleTask) int { return cmp.Or(cmp.Compare(b.Idle, a.Idle), cmp.Compare(a.TaskID, b.TaskID)) })
	return out[:min(len(out), TopIdleTasks)]
}

// outputCosts sums whole tasks' card time and output per project and per model tag.
func outputCosts(whole map[int64]*Breakdown, tasks map[int64]*models.LedgerTask, projects map[int64]string) (byProject, byTag []OutputCost) {
	pj, tg := map[string]*OutputCost{}, map[string]*OutputCost{}
	add := func(m map[string]*OutputCost, key string, t *models.LedgerTask, b *Breakdown) {
		o := m[key]
		if o == nil {
			o = &OutputCost{Key: key}
			m[key] = o
		}
		o.Tasks++
		o.Units += t.OutputUnits
		o.NominalS += b.Nominal()
		o.EffectiveS += b.Effective()
	}
	for id, b := range whole {
		t := tasks[id]
		if t.OutputUnits <= 0 {
			continue
		}
		add(pj, projectName(projects, t.ProjectID), t, b)
		add(tg, ModelTag(t.Name), t, b)
	}
	sorted := func(m map[string]*OutputCost) []OutputCost {
		out := make([]OutputCost, 0, len(m))
		for _, o := range m {
			out = append(out, *o)
		}
		slices.SortFunc(out, func(a, b OutputCost) int { return cmp.Compare(a.Key, b.Key) })
		return out
	}
	return sorted(pj), sorted(tg)
}

func projectName(projects map[int64]string, id int64) string {
	if n, ok := projects[id]; ok {
		return n
	}
	return "project " + strconv.FormatInt(id, 10)
}

func nodeName(nodes map[int64]models.LedgerNode, id int64) string {
	if n, ok := nodes[id]; ok && n.Hostname != "" {
		return n.Hostname
	}
	return "node " + strconv.FormatInt(id, 10)
}

// LoadWindow reads from src everything Utilization needs for [from, to). only limits the
// report to some projects (nil: all).
func LoadWindow(ctx context.Context, src Source, from, to, asOf time.Time, only map[int64]bool) (WindowInput, error) {
	in := WindowInput{From: from, To: to, AsOf: asOf, Only: only}
	var err error
	if in.Projects, err = src.Projects(ctx); err != nil {
		return WindowInput{}, err
	}
	var pid int64
	if len(only) == 1 {
		for id := range only {
			pid = id
		}
	}
	if in.Allocations, err = src.LedgerAllocations(ctx, models.LedgerQuery{From: from, To: to, ProjectID: pid}); err != nil {
		return WindowInput{}, err
	}
	taskIDs, gpuIDs, since := ledgerKeys(in.Allocations, from.Unix())
	if in.Tasks, err = src.LedgerTasks(ctx, taskIDs); err != nil {
		return WindowInput{}, err
	}
	in.Readings = readingsOf(ctx, src, gpuIDs, time.Unix(since, 0), to)
	replicas := map[int64]int64{}
	for _, t := range in.Tasks {
		if t.ServiceID != 0 {
			replicas[t.ID] = t.ServiceID
		}
	}
	if in.Serving, err = loadServing(ctx, src, replicas, time.Unix(since, 0), to); err != nil {
		return WindowInput{}, err
	}
	if in.Nodes, err = src.LedgerNodes(ctx); err != nil {
		return WindowInput{}, err
	}
	if in.Templates, err = src.LedgerTemplates(ctx, taskIDs); err != nil {
		return WindowInput{}, err
	}
	if in.Unmanaged, err = src.UnmanagedSpans(ctx, from, to); err != nil {
		return WindowInput{}, err
	}
	return in, nil
}

// WeekReport is the utilization report of an ISO week ("2026-W10") in the billing time
// zone, of the projects in only (nil: all). A bad or future week is a *models.FieldError on
// "week"; the current week is reported up to now.
func WeekReport(ctx context.Context, src Source, week string, only map[int64]bool, now time.Time) (Report, error) {
	loc, err := Location(ctx, src)
	if err != nil {
		return Report{}, err
	}
	w, err := CheckWeek(week, loc, now)
	if err != nil {
		return Report{}, err
	}
	from, to := w.Bounds(loc)
	in, err := LoadWindow(ctx, src, from, to, now, only)
	if err != nil {
		return Report{}, err
	}
	if in.SpecOptions, err = specOptions(ctx, src, MonthOf(from, loc)); err != nil {
		return Report{}, err
	}
	if in.Trials, err = weekTrials(ctx, src, in.Tasks, Span{from.Unix(), to.Unix()}, MonthOf(from, loc), now); err != nil {
		return Report{}, err
	}
	if err := loadStagePricing(ctx, src, &in, MonthOf(from, loc)); err != nil {
		return Report{}, err
	}
	// The advice reads the cards' peaks, which the bills' readings leave out.
	_, gpus, since := ledgerKeys(in.Allocations, from.Unix())
	in.Readings = func(each func(int64, []models.GPURollup) error) error {
		return src.LedgerPeakReadings(ctx, gpus, time.Unix(since, 0), to, each)
	}
	r, err := Utilization(in)
	if err != nil {
		return Report{}, err
	}
	r.Week, r.TimeZone = w.String(), loc.String()
	if err := priceGroups(ctx, src, &r, MonthOf(from, loc)); err != nil {
		return Report{}, err
	}
	return r, nil
}

// loadStagePricing reads into in the month's prices and plans and the quotas of the
// projects whose pipelines' stage tasks held cards in the window, when there are any.
func loadStagePricing(ctx context.Context, src Source, in *WindowInput, month Month) error {
	var projects []int64
	for _, t := range in.Tasks {
		if t.PipelineID != 0 && (in.Only == nil || in.Only[t.ProjectID]) && !slices.Contains(projects, t.ProjectID) {
			projects = append(projects, t.ProjectID)
		}
	}
	if len(projects) == 0 {
		return nil
	}
	var err error
	if in.Prices, err = src.Prices(ctx, month.String()); err != nil {
		return err
	}
	if in.Plans, err = src.BillingPlans(ctx, month.String()); err != nil {
		return err
	}
	for _, id := range projects {
		q, err := src.Quotas(ctx, id)
		if err != nil {
			return err
		}
		in.Quotas = append(in.Quotas, q...)
	}
	return nil
}

// ReportCSVHeader names the columns of the report's CSV, in Chinese and English.
var ReportCSVHeader = []string{
	"类型 Kind", "名称 Key", "项目 Project", headerOwner, "卡型 Spec", "任务ID Task ID",
	"名义卡时 Nominal card-hours", "有效卡时 Effective card-hours", "闲置时长 Idle hours", "低利用 Low-util hours",
	"准备 Setup hours", "浪费 Wasted card-hours", "无数据 No-data hours", "在线卡时 Provisioned card-hours",
	"未占用 Unheld card-hours", "任务数 Tasks", "产出 Output units", "名义卡时/产出 Nominal card-hours per unit",
	"有效卡时/产出 Effective card-hours per unit", "结束方式 Ending", "预估卡时 Estimated card-hours",
	"偏差 Miss card-hours", "费用 Cost (yuan)", "重跑 Rerun hours", "试跑 Trial hours",
	"最高规格费用 Top-spec cost (yuan)", "节省 Saving (yuan)",
}

// Row kinds of the report's CSV.
const (
	reportTotal         = "合计 total"
	reportProject       = "项目 project"
	reportNode          = "节点 node"
	reportSpec          = "卡型 spec"
	reportIdleTask      = "闲置任务 idle-task"
	reportOutputProject = "产出·项目 output-project"
	reportOutputTag     = "产出·标签 output-tag"
	reportMiss          = "估算偏差 estimate-miss"
	reportTemplate      = "模板 template"
	reportModel         = "模型 model"
	reportAdvice        = "建议 advice"
	reportRerun         = "重跑 rerun"
	reportTrial         = "试跑 trial"
	reportStage         = "阶段 stage"
)

// reportRows passes write the report's rows after the header, one value per column of
// ReportCSVHeader (fewer leave the rest empty): nil, text, whole numbers, HoursCell or
// FenCell. The total, the projects, nodes and specs, the most idle tasks, the cost per
// output unit, the estimate misses (nominal is the actual card time), the templates' use,
// the rightsizing advice, and per project the card time lost to reruns with its cost (their
// hours also in the Rerun column, where the usage rows carry their Rerun class), and the
// card time of trials' runs with its cost (their hours in the Trial column, as Rerun's),
// and each pipeline stage's card time per spec with its cost, what it would have cost on
// the pipeline's highest-priced spec and the saving (the last two columns).
func reportRows(r Report, write func(fields ...any)) {
	h := func(s int64) any { return HoursCell(s) }
	usage := func(kind string, u Usage, nodes bool) {
		var prov, unheld any
		if nodes {
			prov, unheld = h(u.ProvisionedS), h(u.UnheldS)
		}
		write(kind, u.Key, nil, nil, nil, nil, h(u.NominalS), h(u.EffectiveS), h(u.Idle), h(u.LowUtil), h(u.Setup),
			h(u.WastedS), h(u.NoData), prov, unheld, nil, nil, nil, nil, nil, nil, nil, nil, h(u.Rerun), h(u.Trial))
	}
	usage(reportTotal, r.Total, r.Total.ProvisionedS > 0)
	for _, u := range r.Projects {
		usage(reportProject, u, false)
	}
	for _, u := range r.Nodes {
		usage(reportNode, u, r.Total.ProvisionedS > 0)
	}
	for _, u := range r.Specs {
		usage(reportSpec, u, false)
	}
	for _, t := range r.TopIdle {
		write(reportIdleTask, t.Task, t.Project, t.Owner, t.Spec, t.TaskID, h(t.NominalS),
			h(t.EffectiveS), h(t.Idle), h(t.LowUtil), h(t.Setup), h(t.WastedS), h(t.NoData), nil, nil, nil, nil, nil, nil,
			t.Ending)
	}
	output := func(kind string, os []OutputCost) {
		for _, o := range os {
			write(kind, o.Key, nil, nil, nil, nil, h(o.NominalS), h(o.EffectiveS), nil, nil, nil, nil, nil, nil, nil,
				o.Tasks, o.Units, h(o.NominalPerUnitS()), h(o.EffectivePerUnitS()))
		}
	}
	output(reportOutputProject, r.OutputProjects)
	output(reportOutputTag, r.OutputTags)
	for _, m := range r.Misses {
		write(reportMiss, m.Task, m.Project, m.Owner, nil, m.TaskID, h(m.ActualS), nil, nil, nil, nil,
			nil, nil, nil, nil, nil, nil, nil, nil, nil, h(m.EstimatedS), h(m.MissS))
	}
	for _, u := range r.Templates {
		write(reportTemplate, u.Template, u.Project, nil, nil, nil, h(u.NominalS), h(u.EffectiveS), nil, nil, nil, nil, nil, nil, nil,
			u.Runs, nil, nil, nil, nil, nil, nil, FenCell(u.CostFen))
	}
	for _, u := range r.Models {
		write(reportModel, u.Model, u.Project, nil, nil, u.ServiceID, h(u.NominalS), h(u.EffectiveS), nil, nil, nil, nil, nil, nil, nil,
			u.Runs, nil, nil, nil, nil, nil, nil, FenCell(u.CostFen))
	}
	for _, a := range r.Advice {
		write(reportAdvice, AdviceText(a), a.Project, a.Owner, a.Advice.FromSpec, a.TaskID,
			h(a.RuntimeS*int64(a.Advice.FromGPUs)), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, FenCell(a.SavingFen))
	}
	for _, g := range r.Reruns {
		write(reportRerun, g.Project, g.Project, nil, nil, nil, h(g.NominalS), nil, nil, nil, nil, nil, nil, nil, nil,
			g.Runs, nil, nil, nil, nil, nil, nil, FenCell(g.CostFen), h(g.NominalS))
	}
	for _, g := range r.Trials {
		write(reportTrial, g.Project, g.Project, nil, nil, nil, h(g.NominalS), nil, nil, nil, nil, nil, nil, nil, nil,
			g.Runs, nil, nil, nil, nil, nil, nil, FenCell(g.CostFen), nil, h(g.NominalS))
	}
	for _, pc := range r.Pipelines {
		for _, st := range pc.Stages {
			write(reportStage, pc.Pipeline+"/"+st.Stage, pc.Project, nil, st.Spec, nil, h(st.NominalS), h(st.EffectiveS),
				nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, FenCell(st.AmountFen), nil, nil,
				FenCell(st.TopSpecFen), FenCell(st.SavingFen))
		}
	}
}

// WriteReportCSV writes the report as CSV for spreadsheets: UTF-8 with a byte-order mark,
// one header row, then reportRows, with hours as in bills (six decimals). Rows are streamed.
func WriteReportCSV(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	row := make([]byte, 0, 512)
	var err error
	write := func(fields ...any) {
		row = row[:0]
		for i := range ReportCSVHeader {
			if i > 0 {
				row = append(row, ',')
			}
			if i >= len(fields) {
				continue
			}
			switch v := fields[i].(type) {
			case string:
				row = appendText(row, v)
			case int:
				row = strconv.AppendInt(row, int64(v), 10)
			case int64:
				row = strconv.AppendInt(row, v, 10)
			case HoursCell:
				row = append(row, FormatHours(int64(v))...)
			case FenCell:
				row = append(row, FormatFen(int64(v))...)
			}
		}
		row = append(row, '\r', '\n')
		if err == nil {
			_, err = bw.Write(row)
		}
	}
	bw.WriteString("\uFEFF")
	header := make([]any, len(ReportCSVHeader))
	for i, h := range ReportCSVHeader {
		header[i] = h
	}
	write(header...)
	reportRows(r, write)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("billing: write report csv: %w", err)
	}
	return nil
}
