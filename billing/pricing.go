package billing

import (
	"cmp"
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"kashi/models"
)

// pricing holds the prices, plans, quota overflow rates and adjustments in force for the
// month.
type pricing struct {
	prices map[priceKey]models.Price
	plans  map[int64]models.BillingPlan
	// overflow is each quota's overflow rate, by project and spec ("" = all specs); only
	// rates that are set (above 0).
	overflow map[priceKey]int64
	adjust   map[int64][]models.Adjustment
}

type priceKey struct {
	project int64
	spec    string
}

func newPricing(prices []models.Price, plans []models.BillingPlan, quotas []models.Quota, adjs []models.Adjustment) *pricing {
	p := &pricing{prices: map[priceKey]models.Price{}, plans: map[int64]models.BillingPlan{},
		overflow: map[priceKey]int64{}, adjust: map[int64][]models.Adjustment{}}
	for _, q := range quotas {
		if q.OverflowRateFen > 0 {
			p.overflow[priceKey{q.ProjectID, q.Spec}] = q.OverflowRateFen
		}
	}
	for _, r := range prices {
		p.prices[priceKey{r.ProjectID, r.Spec}] = r
	}
	for _, r := range plans {
		p.plans[r.ProjectID] = r
	}
	for _, a := range adjs {
		p.adjust[a.ProjectID] = append(p.adjust[a.ProjectID], a)
	}
	return p
}

// price is the project's own price of spec, else the default list's.
func (p *pricing) price(project int64, spec string) (models.Price, bool) {
	if r, ok := p.prices[priceKey{project, spec}]; ok {
		return r, true
	}
	r, ok := p.prices[priceKey{0, spec}]
	return r, ok
}

// pricer prices one bill.
type pricer struct {
	*pricing
	b        *Bill
	plan     models.BillingPlan
	classes  []models.SizeClass
	missing  map[string]bool
	charged  map[int64]bool
	tasks    map[int64]*models.LedgerTask
	taskHeld map[int64]int64
}

// bill prices a project's lines (sorted by task, spec, overflow last) under its plan and fills b's lines, items, idle section,
// package and total.
func (p *pricing) bill(b *Bill, accs []*lineAcc, tasks map[int64]*models.LedgerTask, taskHeld map[int64]int64, win Span, asOf int64) error {
	bl, err := p.pricer(b, tasks, taskHeld)
	if err != nil {
		return err
	}
	b.Mode = bl.plan.Mode
	b.Lines = make([]Line, 0, len(accs))
	for i := range accs {
		l := bl.line(accs[i])
		if t := tasks[l.TaskID]; t != nil && (i == 0 || accs[i-1].key.task != l.TaskID) {
			l.EstimatedS = t.EstimatedS
		}
		b.Lines = append(b.Lines, l)
		b.Held.Add(accs[i].held)
		b.WastedS += l.WastedS
	}
	b.NominalS, b.EffectiveS = b.Held.Nominal(), b.Held.Effective()
	b.RerunFen = RerunFen(b)
	b.TrialFen = TrialFen(b)
	b.PriceVersions = p.priceVersions(b.ProjectID, b.Lines)
	if b.Pipelines, err = p.pipelineCosts(b, b.Lines, tasks, taskHeld); err != nil {
		return err
	}
	bl.items(win, asOf)
	bl.idle()
	for _, it := range b.Items {
		b.TotalFen = AddFen(b.TotalFen, it.AmountFen)
	}
	b.MissingPrices = slices.Sorted(maps.Keys(bl.missing))
	// Empty lists encode as [], not null: the JSON shape does not depend on the month.
	b.Tags = emptyIfNil(b.Tags)
	b.Items, b.Idle = emptyIfNil(b.Items), emptyIfNil(b.Idle)
	b.MissingPrices, b.AdjustmentIDs = emptyIfNil(b.MissingPrices), emptyIfNil(b.AdjustmentIDs)
	return nil
}

// pricer prices b's lines under its project's plan (pay-as-you-go when it has none).
func (p *pricing) pricer(b *Bill, tasks map[int64]*models.LedgerTask, taskHeld map[int64]int64) (*pricer, error) {
	plan, ok := p.plans[b.ProjectID]
	if !ok || plan.Mode == "" {
		plan = models.BillingPlan{Mode: models.BillPayAsYouGo}
	}
	bl := &pricer{pricing: p, b: b, plan: plan, missing: map[string]bool{}, charged: map[int64]bool{}, tasks: tasks, taskHeld: taskHeld}
	if plan.Mode == models.BillPerTask {
		cs, err := models.ParseSizeClasses(plan.SizeClasses)
		if err != nil {
			return nil, fmt.Errorf("billing: plan of project %q: %w", b.Project, err)
		}
		bl.classes = cs
	}
	return bl, nil
}

// quotaOverflowRate is the rate of quota overflow on spec: the rate written into the
// project's quota of the spec, else of its all-specs quota, when that is set; else the price
// list's overflow rate.
func (bl *pricer) quotaOverflowRate(spec string) int64 {
	if r, ok := bl.overflow[priceKey{bl.b.ProjectID, spec}]; ok {
		return r
	}
	if r, ok := bl.overflow[priceKey{bl.b.ProjectID, ""}]; ok {
		return r
	}
	return bl.rate(spec, true)
}

// rate is the price list's pay-as-you-go or overflow rate of spec; a missing price is noted
// and rates 0.
func (bl *pricer) rate(spec string, overflow bool) int64 {
	r, ok := bl.price(bl.b.ProjectID, spec)
	if !ok {
		bl.missing[spec] = true
		return 0
	}
	if overflow {
		return r.OverflowRateFen
	}
	return r.RateFen
}

// line prices one accumulated line.
func (bl *pricer) line(la *lineAcc) Line {
	l := Line{TaskID: la.key.task, Spec: la.key.spec, Region: la.region, Breakdown: la.held, NominalS: la.held.Nominal(),
		EffectiveS: la.held.Effective(), WastedS: la.wasted}
	t := bl.tasks[la.key.task]
	if t != nil {
		l.Task, l.Owner, l.State, l.Ending, l.Units = t.Name, t.Owner, t.State, t.Ending, t.OutputUnits
	}
	switch {
	case la.key.overflow:
		l.Pricing = PricingOverflow
		l.RateFen = bl.quotaOverflowRate(l.Spec)
		l.AmountFen = Amount(l.NominalS, l.RateFen)
	case bl.plan.Mode == models.BillReserved && l.Spec == bl.plan.PackageSpec:
		l.Pricing = PricingPackage
	case bl.plan.Mode == models.BillPerTask:
		bl.perTask(&l, t)
	default:
		l.Pricing = PricingCardHour
		l.RateFen = bl.rate(l.Spec, false)
		l.AmountFen = Amount(l.NominalS, l.RateFen)
	}
	return l
}

// perTask prices a line per output unit or per size class. A task is charged once, on its
// first line, in the month it ends; card-hours are shown beside the price.
func (bl *pricer) perTask(l *Line, t *models.LedgerTask) {
	l.Pricing, l.RateFen = PricingUnit, bl.plan.UnitPriceFen
	if len(bl.classes) > 0 {
		l.Pricing = PricingTask
	}
	held, ended := bl.taskHeld[l.TaskID]
	switch {
	case t == nil || !ended:
		l.Note = "charged in the month the task ends"
		return
	case bl.charged[l.TaskID]:
		l.Note = "charged on the task's first line"
		return
	}
	bl.charged[l.TaskID] = true
	if len(bl.classes) == 0 {
		l.AmountFen = mulSat(t.OutputUnits, l.RateFen)
		return
	}
	c := bl.classes[len(bl.classes)-1]
	for _, k := range bl.classes {
		if k.MaxCardHours == 0 || held <= k.MaxCardHours*3600 {
			c = k
			break
		}
	}
	l.SizeClass, l.RateFen, l.AmountFen = c.Name, c.PriceFen, c.PriceFen
}

// items fills the summary: per spec the subtotal and the overflow subtotal, then the
// package fee and hours beyond it, then adjustments.
func (bl *pricer) items(win Span, asOf int64) {
	b := bl.b
	type pair struct{ spec, over Item }
	bySpec := map[string]*pair{}
	for _, l := range b.Lines {
		p := bySpec[l.Spec]
		if p == nil {
			p = &pair{Item{Kind: ItemSpec, Spec: l.Spec}, Item{Kind: ItemOverflow, Spec: l.Spec}}
			bySpec[l.Spec] = p
		}
		it := &p.spec
		if l.Pricing == PricingOverflow {
			it = &p.over
			it.RateFen = l.RateFen
		}
		it.NominalS += l.NominalS
		it.EffectiveS += l.EffectiveS
		it.IdleS += l.Idle
		it.AmountFen = AddFen(it.AmountFen, l.AmountFen)
	}
	for _, spec := range slices.Sorted(maps.Keys(bySpec)) {
		p := bySpec[spec]
		for _, it := range []Item{p.spec, p.over} {
			if it.NominalS > 0 {
				b.Items = append(b.Items, it)
			}
		}
	}
	if bl.plan.Mode == models.BillReserved {
		bl.reserve(win, asOf)
	}
	bl.bookingItems()
	for _, a := range bl.adjust[b.ProjectID] {
		note := a.Reason
		if a.CorrectsMonth != "" {
			note += " (corrects " + a.CorrectsMonth + ")"
		}
		b.Items = append(b.Items, Item{Kind: ItemAdjustment, AmountFen: a.AmountFen, Note: note})
		b.AdjustmentIDs = append(b.AdjustmentIDs, a.ID)
		b.Adjustments = append(b.Adjustments, AdjustmentRecordOf(a))
	}
}

// AdjustmentRecordOf is adjustment a as a bill records it.
func AdjustmentRecordOf(a models.Adjustment) AdjustmentRecord {
	return AdjustmentRecord{ID: a.ID, AmountFen: a.AmountFen, Reason: a.Reason, CorrectsMonth: a.CorrectsMonth, By: a.CreatedBy,
		At: a.CreatedAt.UTC()}
}

// priceVersions are the versions of the prices (in force in the month) that priced the
// specs of a project's lines, in the order the lines first use them: the project's own,
// else the default list's, as price finds them. A spec without a price has none.
func (p *pricing) priceVersions(project int64, lines []Line) []PriceVersion {
	var out []PriceVersion
	seen := map[string]bool{}
	for _, ln := range lines {
		if seen[ln.Spec] {
			continue
		}
		seen[ln.Spec] = true
		if pr, ok := p.price(project, ln.Spec); ok {
			out = append(out, PriceVersion{Spec: pr.Spec, Own: pr.ProjectID != 0, FromMonth: pr.FromMonth, RateFen: pr.RateFen,
				OverflowRateFen: pr.OverflowRateFen})
		}
	}
	return out
}

// reserve adds the package fee and the package spec's hours beyond the package. Hours are
// beyond the whole month's cover; unused ones are of the cover until asOf (see Package).
func (bl *pricer) reserve(win Span, asOf int64) {
	b, plan := bl.b, bl.plan
	pk := &Package{Spec: plan.PackageSpec, Cards: plan.PackageCards, FeeFen: plan.PackageFeeFen,
		CoveredS: int64(plan.PackageCards) * win.Seconds()}
	for _, l := range b.Lines {
		if l.Pricing == PricingPackage {
			pk.UsedS += l.NominalS
		}
	}
	coveredSoFar := int64(plan.PackageCards) * Span{win.Start, min(asOf, win.End)}.Seconds()
	pk.BeyondS, pk.UnusedS = max(0, pk.UsedS-pk.CoveredS), max(0, coveredSoFar-pk.UsedS)
	b.Package = pk
	b.Items = append(b.Items, Item{Kind: ItemPackageFee, Spec: pk.Spec, AmountFen: pk.FeeFen,
		Note: fmt.Sprintf("%d cards", pk.Cards)})
	if pk.BeyondS > 0 {
		pk.OverflowRateFen = bl.rate(pk.Spec, true)
		b.Items = append(b.Items, Item{Kind: ItemPackageBeyond, Spec: pk.Spec, NominalS: pk.BeyondS,
			RateFen: pk.OverflowRateFen, AmountFen: Amount(pk.BeyondS, pk.OverflowRateFen)})
	} else if r, ok := bl.price(b.ProjectID, pk.Spec); ok {
		pk.OverflowRateFen = r.OverflowRateFen
	}
}

// idle fills the idle section: each task's idle seconds per spec, most first. The lines
// come by task and spec (then overflow), so a task's lines of one spec are next to each
// other.
func (bl *pricer) idle() {
	b := bl.b
	n := 0
	for _, l := range b.Lines {
		if l.Idle != 0 {
			n++
		}
	}
	b.Idle = slices.Grow(b.Idle, n)
	for _, l := range b.Lines {
		if l.Idle == 0 {
			continue
		}
		k := len(b.Idle) - 1
		if k < 0 || b.Idle[k].TaskID != l.TaskID || b.Idle[k].Spec != l.Spec {
			b.Idle = append(b.Idle, IdleLine{TaskID: l.TaskID, Task: l.Task, Owner: l.Owner, Spec: l.Spec})
			k++
		}
		b.Idle[k].IdleS += l.Idle
		b.Idle[k].LowUtilS += l.LowUtil
		b.Idle[k].NominalS += l.NominalS
	}
	slices.SortStableFunc(b.Idle, func(x, y IdleLine) int { return cmp.Compare(y.IdleS, x.IdleS) })
}

// mulSat is a × b for non-negative operands, saturating at the int64 maximum.
func mulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(lo)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
