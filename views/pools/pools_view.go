package pools

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
)

// Helpers of pools.templ: the chart's geometry, and the words for the scaling loop's codes.

// chart is a pool's size chart ready to draw: step paths for size and desired size, a line
// for demand (in nodes), reference lines for min and max, and the axes' ticks.
type chart struct {
	Size, Desired, Demand string // SVG path data; "" when there is no sample
	// Unmet shades the demand the pool did not hold: where demand (in nodes) rose above its
	// size, sample by sample; "" when it never did.
	Unmet          string
	MinY, MaxY     float64
	YTicks, XTicks []views.ChartTick
	// YTop is the value at the top of the plot; PeakDemand the largest demand in nodes.
	YTop       int
	PeakDemand float64
	PeakGPUs   int
	// Low and High are the smallest and largest size in the range.
	Low, High int
	Empty     bool
	// Booked is the band of reserved cards (in nodes) over the windows in the range; "" for
	// none.
	Booked string
}

// niceSteps are the tick steps of the node axis.
var niceSteps = []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}

// poolChart lays out p's samples between from and to (the page's now, whose location the
// time labels use).
func poolChart(p PoolView, from, to time.Time) chart {
	c := chart{Empty: len(p.Samples) == 0, Low: p.Size, High: p.Size}
	gpn := float64(max(p.GPUsPerNode, 1))
	top := float64(max(p.MaxNodes, p.Size, p.Desired, 1))
	booked := bookedSteps(p.Bookings, from, to)
	for _, b := range booked {
		top = max(top, float64(b.cards)/gpn)
	}
	for i, s := range p.Samples {
		if i == 0 {
			c.Low, c.High = s.Size, s.Size
		}
		c.Low, c.High = min(c.Low, s.Size), max(c.High, s.Size)
		d := float64(s.DemandGPUs) / gpn
		if d > c.PeakDemand {
			c.PeakDemand, c.PeakGPUs = d, s.DemandGPUs
		}
		top = max(top, float64(s.Size), float64(s.Desired), d)
	}
	step := niceSteps[len(niceSteps)-1]
	for _, s := range niceSteps {
		if math.Ceil(top/float64(s)) <= views.ChartMaxTicksY {
			step = s
			break
		}
	}
	c.YTop = int(math.Ceil(top/float64(step))) * step
	if c.YTop == int(top) && top < float64(step*views.ChartMaxTicksY) {
		c.YTop += step // headroom above the highest line
	}
	y := func(v float64) float64 { return views.ChartY1 - v/float64(c.YTop)*(views.ChartY1-views.ChartY0) }
	span := to.Sub(from)
	if span <= 0 {
		span = time.Hour
	}
	x := func(t time.Time) float64 {
		f := float64(t.Sub(from)) / float64(span)
		return views.ChartX0 + max(0, min(1, f))*(views.ChartX1-views.ChartX0)
	}
	for v := 0; v <= c.YTop; v += step {
		c.YTicks = append(c.YTicks, views.ChartTick{Pos: y(float64(v)), Label: strconv.Itoa(v), Anchor: "end"})
	}
	c.XTicks = views.TimeTicks(from, to, x)
	c.MinY, c.MaxY = y(float64(p.MinNodes)), y(float64(p.MaxNodes))
	c.Booked = bookedPath(booked, gpn, x, y)
	if c.Empty {
		return c
	}
	c.Size = stepPath(p.Samples, func(s PoolSample) float64 { return float64(s.Size) }, x, y, to)
	c.Desired = stepPath(p.Samples, func(s PoolSample) float64 { return float64(s.Desired) }, x, y, to)
	c.Demand = linePath(p.Samples, func(s PoolSample) float64 { return float64(s.DemandGPUs) / gpn }, x, y, to)
	c.Unmet = unmetPath(p.Samples, gpn, x, y, to)
	return c
}

// unmetPath is one rectangle per sample whose demand (in nodes of gpn cards) is above the
// pool's size, from that sample to the next (or end), between the size and the demand.
func unmetPath(ss []PoolSample, gpn float64, x func(time.Time) float64, y func(float64) float64, end time.Time) string {
	var b strings.Builder
	for i, s := range ss {
		d := float64(s.DemandGPUs) / gpn
		if d <= float64(s.Size) {
			continue
		}
		next := end
		if i+1 < len(ss) {
			next = ss[i+1].At
		}
		b.WriteString("M" + views.Num(x(s.At)) + " " + views.Num(y(float64(s.Size))) + "H" + views.Num(x(next)) + "V" + views.Num(y(d)) +
			"H" + views.Num(x(s.At)) + "Z")
	}
	return b.String()
}

// stepPath draws a value that holds until the next sample, up to end.
func stepPath(ss []PoolSample, v func(PoolSample) float64, x func(time.Time) float64, y func(float64) float64, end time.Time) string {
	var b strings.Builder
	b.WriteString("M" + views.Num(x(ss[0].At)) + " " + views.Num(y(v(ss[0]))))
	last := v(ss[0])
	for _, s := range ss[1:] {
		if cur := v(s); cur != last {
			b.WriteString("H" + views.Num(x(s.At)) + "V" + views.Num(y(cur)))
			last = cur
		}
	}
	b.WriteString("H" + views.Num(x(end)))
	return b.String()
}

// linePath joins the samples with straight lines, leaving out points in the middle of a run
// of equal values, and holds the last value up to end.
func linePath(ss []PoolSample, v func(PoolSample) float64, x func(time.Time) float64, y func(float64) float64, end time.Time) string {
	var b strings.Builder
	for i, s := range ss {
		cur := v(s)
		inRun := i > 0 && i < len(ss)-1 && v(ss[i-1]) == cur && v(ss[i+1]) == cur
		if inRun {
			continue
		}
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString("L")
		}
		b.WriteString(views.Num(x(s.At)) + " " + views.Num(y(cur)))
	}
	b.WriteString("H" + views.Num(x(end)))
	return b.String()
}

// chartID is the id prefix of pool i's chart elements.
func chartID(i int) string { return "pool-chart-" + strconv.Itoa(i) }

// rangeSpan is the duration of a ChartRanges value; 6 hours for anything else.
func rangeSpan(r string) time.Duration {
	switch r {
	case "1h":
		return time.Hour
	case "24h":
		return 24 * time.Hour
	case "7d":
		return 7 * 24 * time.Hour
	}
	return 6 * time.Hour
}

// RangeSpan is the duration of a ChartRanges value, and the range itself when valid; an
// unknown range means "6h".
func RangeSpan(r string) (string, time.Duration) {
	for _, v := range ChartRanges {
		if v == r {
			return r, rangeSpan(r)
		}
	}
	return "6h", rangeSpan("6h")
}

// rangeLabel is how the range selector writes a range.
func rangeLabel(l phrase.Locale, r string) string { return l.Duration(rangeSpan(r)) }

// scaleReasonText says in words why the scaling loop acted or did not (a
// scaler.Reason code); an unknown code is shown as it is.
func scaleReasonText(l phrase.Locale, code string) string {
	switch code {
	case "demand-waiting":
		return l.T("scale.reason.demand_waiting")
	case "memory-high":
		return l.T("scale.reason.memory_high")
	case "below-min":
		return l.T("scale.reason.below_min")
	case "reserved-min":
		return l.T("scale.reason.reserved_min")
	case "booked":
		return l.T("reserve.scale_reason")
	case "node-unneeded":
		return l.T("scale.reason.node_unneeded")
	case "above-max":
		return l.T("scale.reason.above_max")
	case "drained-empty":
		return l.T("scale.reason.drained_empty")
	case "drain-too-long":
		return l.T("scale.reason.drain_too_long")
	case "boot-timeout":
		return l.T("scale.reason.boot_timeout")
	case "machine-failed":
		return l.T("scale.reason.machine_failed")
	case "idle-task":
		return l.T("scale.reason.idle_task")
	case "active-again":
		return l.T("scale.reason.active_again")
	case "reclaim-off":
		return l.T("scale.reason.reclaim_off")
	case "no-answer":
		return l.T("scale.reason.no_answer")
	case "unknown-machine":
		return l.T("scale.reason.unknown_machine")
	case "duplicate-machine":
		return l.T("scale.reason.duplicate_machine")
	case "leftover-machine":
		return l.T("scale.reason.leftover_machine")
	case "at-max-size":
		return l.T("scale.skip.at_max_size")
	case "at-min-size":
		return l.T("scale.skip.at_min_size")
	case "in-cooldown":
		return l.T("scale.skip.in_cooldown")
	case "in-flight-cap":
		return l.T("scale.skip.in_flight_cap")
	case "no-demand":
		return l.T("scale.skip.no_demand")
	case "demand-pending":
		return l.T("scale.skip.demand_pending")
	case "memory-not-low":
		return l.T("scale.skip.memory_not_low")
	case "none-unneeded":
		return l.T("scale.skip.none_unneeded")
	case "no-removable-node":
		return l.T("scale.skip.no_removable")
	case "covered-by-booting":
		return l.T("scale.skip.covered_by_booting")
	case "boot-backoff":
		return l.T("scale.skip.boot_backoff")
	case "boot-failing":
		return l.T("scale.skip.boot_failing")
	case "cluster-scales":
		return l.T("scale.skip.cluster_scales")
	}
	return code
}

// scaleKindText names what a scaling event did.
func scaleKindText(l phrase.Locale, kind string) string {
	switch kind {
	case "scale-up":
		return l.T("scale.kind.scale_up")
	case "drain":
		return l.T("scale.kind.drain")
	case "undrain":
		return l.T("scale.kind.undrain")
	case "remove":
		return l.T("scale.kind.remove")
	case "delete-machine":
		return l.T("scale.kind.delete_machine")
	case "adopt":
		return l.T("scale.kind.adopt")
	}
	return kind
}

// eventHead is the start of an event's sentence: the pool and its size change.
func eventHead(l phrase.Locale, e ScaleEventView) string {
	switch {
	case e.From != e.To:
		return l.T("pools.event.change", e.Pool, e.From, e.To)
	case e.From != 0:
		return l.T("pools.event.size", e.Pool, e.From)
	}
	return l.T("pools.event.pool", e.Pool)
}

// poolStateText names a pool's state.
func poolStateText(l phrase.Locale, state string) string {
	switch state {
	case PoolGrowing:
		return l.T("pools.state.growing")
	case PoolShrinking:
		return l.T("pools.state.shrinking")
	case PoolDisabled:
		return l.T("pools.state.disabled")
	case PoolAtMax:
		return l.T("pools.state.at_max")
	case PoolFailing:
		return l.T("pools.state.failing")
	}
	return l.T("pools.state.steady")
}

// fenText writes fen as yuan with two decimals and thousands separators, without the sign.
func fenText(fen int64) string { return strings.TrimPrefix(views.Yuan(fen), "¥") }

// priceSourceText says where a pool's list price came from, and what the pool costs an
// hour at its maximum size.
func priceSourceText(l phrase.Locale, p PoolView) string {
	atMax := l.T("unit.yuan_per_h", fenText(p.HourlyPriceFen*int64(p.MaxNodes)))
	if p.PriceSource == PriceFromProvider {
		return l.T("pools.price.quoted", p.Provider, atMax)
	}
	return l.T("pools.price.settings", atMax)
}

// fieldLabel names a setting, with its unit.
func fieldLabel(l phrase.Locale, f PoolField) string {
	if f.Unit == "" {
		return l.T(f.LabelKey)
	}
	return l.T("poolform.label_unit", l.T(f.LabelKey), unitText(l, f.Unit))
}

// fieldHelp explains a setting, with the default its zero value stands for.
func fieldHelp(l phrase.Locale, f PoolField) string {
	if f.Default == "" {
		return l.T(f.HelpKey)
	}
	return l.T(f.HelpKey, valueText(l, f, f.Default))
}

// unitText names a unit.
func unitText(l phrase.Locale, unit string) string {
	switch unit {
	case UnitMinutes:
		return l.T("unit.min")
	case UnitHours:
		return l.T("unit.h")
	case UnitYuanHour:
		return l.T("unit.yuan_h")
	}
	return unit
}

// valueText writes a value of the setting, as the form holds it, in words with its unit.
func valueText(l phrase.Locale, f PoolField, v string) string {
	switch {
	case f.Kind == PoolInputCheck && v == "on":
		return l.T("poolform.on")
	case f.Kind == PoolInputCheck:
		return l.T("poolform.off")
	case f.Kind == PoolInputChoice:
		return choiceText(l, f, v)
	case f.Kind == PoolInputText && v == "":
		return `""`
	case f.Unit == UnitPercent:
		return v + "%"
	case f.Unit == UnitYuanHour:
		return l.T("unit.yuan_per_h", v)
	case f.Unit != "":
		return v + " " + unitText(l, f.Unit)
	}
	return v
}

// choiceText names a choice of the setting; "" is its default, the first.
func choiceText(l phrase.Locale, f PoolField, v string) string {
	if v == "" && len(f.Choices) > 0 {
		v = f.Choices[0]
	}
	return l.T(f.LabelKey + "." + v)
}

// inputStep is the step attribute of a number input.
func inputStep(f PoolField) string {
	switch {
	case f.Kind == PoolInputCount:
		return "1"
	case f.Unit == UnitYuanHour:
		return "0.01"
	}
	return "any"
}

// fieldValue is the input's value, and whether a checkbox is checked.
func (f PoolForm) fieldValue(name string) string { return f.Values[name] }

func (f PoolForm) checked(name string) bool { return f.Values[name] == "on" }

// errText is the problem of the setting's input in words, after the setting's name and
// unit; "" for none.
func (f PoolForm) errText(l phrase.Locale, fd PoolField) string {
	e, ok := f.Errors[fd.Name]
	if !ok {
		return ""
	}
	return l.T("poolform.err.field", fieldLabel(l, fd), poolErr(l, fd, e))
}

// poolErr is a problem of a setting's input in words.
func poolErr(l phrase.Locale, fd PoolField, e views.FormError) string {
	switch {
	case e.Code == FormErrYuan:
		return l.T("poolform.err.yuan")
	case e.Code == FormErrChoice:
		var names []string
		for _, c := range fd.Choices {
			names = append(names, choiceText(l, fd, c))
		}
		return l.T("poolform.err.choice", strings.Join(names, l.T("poolform.choice_sep")))
	case e.Code == FormErrRule:
		return ruleText(l, e)
	case e.Code != FormErrRange:
		return views.FormErrorText(l, e)
	case fd.Min == "0" && fd.Default != "" && !fd.Optional:
		return l.T("poolform.err.range", l.T("poolform.zero_default"), valueText(l, fd, fd.Max))
	}
	return l.T("poolform.err.range", valueText(l, fd, fd.Min), valueText(l, fd, fd.Max))
}

// ruleText says which rule of the flavor choice a setting breaks (FormErrRule).
func ruleText(l phrase.Locale, e views.FormError) string {
	switch e.Text {
	case FlavorErrUnknown:
		return l.T("poolform.err.flavor_unknown", e.Args...)
	case FlavorErrGPUs:
		return l.T("poolform.err.flavor_gpus", e.Args...)
	}
	return e.Text
}

// flavorText describes a flavor of the select: its name, GPUs and their memory.
func flavorText(l phrase.Locale, f FlavorOption) string {
	return l.T("poolform.flavor_option", f.Name, f.GPUs, f.GPUModel, strconv.FormatInt(f.MemoryMiB/1024, 10))
}

// flavorListed reports whether the form's flavor is one of the select's choices.
func (f PoolForm) flavorListed() bool {
	for _, o := range f.Flavors {
		if o.Name == f.Values["flavor"] {
			return true
		}
	}
	return false
}

// invalidAttr is aria-invalid="true" for an input with a problem; the form's first input
// with a problem gets autofocus too.
func (f PoolForm) invalidAttr(name string) templ.Attributes {
	if _, bad := f.Errors[name]; !bad {
		return nil
	}
	if first := f.problemList(); first[0].Name == name {
		return templ.Attributes{"aria-invalid": "true", "autofocus": true}
	}
	return templ.Attributes{"aria-invalid": "true"}
}

// problemList is the settings with a problem in the form's order, for the list above it.
func (f PoolForm) problemList() []PoolField {
	var out []PoolField
	for _, g := range f.Groups {
		for _, fd := range g.Fields {
			if _, bad := f.Errors[fd.Name]; bad {
				out = append(out, fd)
			}
		}
	}
	return out
}

// chartDesc describes the chart in words for screen readers.
func chartDesc(l phrase.Locale, d PoolsData, p PoolView, c chart) string {
	if c.Empty {
		return l.T("pools.chart.desc_empty", p.Size, p.Desired)
	}
	return l.T("pools.chart.desc", p.Size, p.Desired, rangeLabel(l, d.Range), c.Low, c.High, l.Count("pools.chart.gpus", c.PeakGPUs),
		strconv.FormatFloat(c.PeakDemand, 'f', 1, 64))
}

// poolEditTitle is the heading of the configuration page.
func poolEditTitle(l phrase.Locale, d PoolEditData) string {
	if d.New {
		return l.T("poolform.title_new", d.Name)
	}
	return l.T("poolform.title", d.Name)
}

// PoolSavedNotice confirms a saved configuration version.
func PoolSavedNotice(l phrase.Locale, version int) string { return l.T("poolform.saved", version) }

// PoolUnchangedNotice says a submitted configuration equals the current one.
func PoolUnchangedNotice(l phrase.Locale, version int) string {
	return l.T("poolform.unchanged", version)
}

// PoolRolledBackNotice confirms a roll back: version became the new current one.
func PoolRolledBackNotice(l phrase.Locale, to, version int) string {
	return l.T("poolform.rolled_back", to, version)
}
