package projects

import (
	"cmp"
	"context"
	"strings"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
	"kashi/scheduler"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// requestWorld is what the context of pending requests is read from, once per page.
type requestWorld struct {
	now     time.Time
	monthAt time.Time // the billing month's end
	quotas  []models.Quota
	usage   map[int64]map[string]int64
	use     map[string]scheduler.Use // cards held now, by project name
	active  map[int64]models.TaskRow
	quota   []scheduler.QueueEntry // queue entries waiting on quota
	prices  []models.Price
	ceil    models.Ceilings // what the fleet reaches and what is promised of it
}

// loadRequestWorld reads quotas, this month's use, the active tasks, the queue (with the
// cards each project holds, as the scheduler counts them) and the month's prices.
func (h *Handler) loadRequestWorld(ctx context.Context) (requestWorld, error) {
	now := h.Now()
	start := models.MonthStart(now, h.Loc())
	w := requestWorld{now: now, monthAt: start.In(h.Loc()).AddDate(0, 1, 0), active: map[int64]models.TaskRow{}}
	var err error
	if w.quotas, err = h.store.Quotas(ctx, 0); err != nil {
		return w, err
	}
	if w.usage, err = h.store.UsageSeconds(ctx, start, now); err != nil {
		return w, err
	}
	tasks, err := h.store.ActiveTasks(ctx)
	if err != nil {
		return w, err
	}
	for _, t := range tasks {
		w.active[t.ID] = t
	}
	view, err := h.Sched.Queue(ctx, now)
	if err != nil {
		return w, err
	}
	w.use = view.Use
	for _, e := range view.Entries {
		if e.Reason == scheduler.ReasonQuota {
			w.quota = append(w.quota, e)
		}
	}
	if w.ceil, err = h.store.Ceilings(ctx, now); err != nil {
		return w, err
	}
	w.prices, err = h.store.Prices(ctx, billing.MonthOf(now, h.Loc()).String())
	return w, err
}

// requestContext is a pending request's context; nil when its quota is gone.
func (w requestWorld) requestContext(l phrase.Locale, r models.QuotaRequestRow) *projectsview.RequestContext {
	var q *models.Quota
	for i := range w.quotas {
		if w.quotas[i].ProjectID == r.ProjectID && w.quotas[i].Spec == r.Spec {
			q = &w.quotas[i]
		}
	}
	if q == nil {
		return nil
	}
	c := r.Parsed()
	x := &projectsview.RequestContext{Limit: q.Limit(w.now), BudgetCardHours: q.BudgetCardHours, Age: w.now.Sub(r.CreatedAt)}
	for spec, s := range w.usage[r.ProjectID] {
		if q.Spec == "" || spec == q.Spec {
			x.MonthCardHours += s
		}
	}
	x.MonthCardHours /= 3600
	x.InUse = w.use[r.Project].Of(q.Spec)
	matches := func(t models.TaskRow) bool {
		return t.ProjectID == r.ProjectID && (q.Spec == "" || t.Spec == "" || t.Spec == q.Spec)
	}
	for _, e := range w.quota {
		if t, ok := w.active[e.TaskID]; ok && matches(t) && startedBy(r.Kind, c, *q, e) {
			x.Waiting = append(x.Waiting, projectsview.WaitingTask{ID: t.ID, Name: t.Name, GPUs: t.GPUs})
		}
	}
	priceSpec := q.Spec
	if r.Kind == models.RequestReservation {
		priceSpec = cmp.Or(q.Spec, c.ReserveSpec) // a reservation in a region: the spec it books
	}
	rate, overflowRate, priced := w.rate(r.ProjectID, priceSpec)
	x.NoPrice = !priced
	// hoursLeft is what is left of the month (or of the quota, when it ends sooner).
	hoursLeft := int64(min(w.monthAt.Sub(w.now), q.EndsAt.Sub(w.now)) / time.Hour)
	gpus := func(n int) string { return l.Count("ctx.gpus", n) }
	hours := func(n int64) string { return l.T("ctx.card_hours", l.Int(int(n))) }
	cost := func(cardHours int64, rateFen int64, basis string) {
		x.CostFen, x.CostBasis = billing.Amount(max(cardHours, 0)*3600, rateFen), basis
	}
	switch r.Kind {
	case models.RequestLimit:
		x.Current, x.Requested, x.Diff = gpus(q.MaxGPUs), gpus(c.MaxGPUs), signed(l, c.MaxGPUs-q.MaxGPUs, gpus)
		cost(int64(c.MaxGPUs-q.MaxGPUs)*hoursLeft, rate, "month")
	case models.RequestGuarantee:
		g := *c.GuaranteedGPUs
		x.Current, x.Requested, x.Diff = gpus(q.GuaranteedGPUs), gpus(g), signed(l, g-q.GuaranteedGPUs, gpus)
		cost(int64(g-q.GuaranteedGPUs)*hoursLeft, rate, "month")
	case models.RequestBudget:
		x.Current, x.Requested = hours(q.BudgetCardHours), hours(q.BudgetCardHours+c.AddCardHours)
		x.Diff = "+" + hours(c.AddCardHours)
		cost(c.AddCardHours, rate, "budget")
	case models.RequestOverride:
		span := c.OverrideEnds.Sub(*c.OverrideBegins)
		x.Current, x.Requested = gpus(q.MaxGPUs), gpus(c.OverrideMaxGPUs)
		x.Diff = l.T("ctx.for", signed(l, c.OverrideMaxGPUs-q.MaxGPUs, gpus), l.Duration(span))
		cost(int64(c.OverrideMaxGPUs-q.MaxGPUs)*int64(span/time.Hour), rate, "override")
	case models.RequestExtend:
		days := int(c.EndsAt.Sub(q.EndsAt).Hours() / 24)
		x.Current, x.Requested = q.EndsAt.Format(time.DateOnly), c.EndsAt.Format(time.DateOnly)
		x.Diff = "+" + l.T("ctx.days", l.Int(days))
		cost(q.BudgetCardHours*int64(days)/30, rate, "extend")
	case models.RequestOverflow:
		x.Current = overflowText(l, q.OverflowAllowed, q.OverflowRateFen, overflowRate)
		x.Requested = overflowText(l, *c.OverflowAllowed, c.OverflowRateFen, overflowRate)
		x.Diff = "—"
		asked := c.OverflowRateFen
		if asked == 0 {
			asked = overflowRate
		}
		cost(1, asked, "overflow")
	case models.RequestReservation:
		x.Current, x.Requested = gpus(q.Limit(w.now)), reservationText(l, c)
		x.Diff = "+" + hours(c.ReservedCardSeconds()/3600)
		x.CostFen, x.CostBasis = billing.Amount(c.ReservedCardSeconds(), rate), "reservation"
	}
	w.ceilings(l, r, *q, x)
	return x
}

// startedBy reports whether approving a request of kind asking c of quota q would start the
// task of queue entry e, which waits on its project's quota: more card-hours start only tasks
// waiting on the budget; a higher limit (or a temporary one) only tasks waiting on the card
// limit that the new limit makes room for (its cards over the limit, Needs, at most what it
// adds). Other kinds list every task waiting on the quota.
func startedBy(kind string, c models.QuotaChange, q models.Quota, e scheduler.QueueEntry) bool {
	added := 0
	switch kind {
	case models.RequestBudget:
		return e.Detail == scheduler.DetailBudgetExhausted
	case models.RequestLimit:
		added = c.MaxGPUs - q.MaxGPUs
	case models.RequestOverride:
		added = c.OverrideMaxGPUs - q.MaxGPUs
	default:
		return true
	}
	if e.Detail != scheduler.DetailConcurrentLimit {
		return false
	}
	return e.Quota == nil || (e.Quota.Spec == q.Spec && e.Quota.Needs <= added)
}

// ceilings adds to x the ceilings of the request: the contract a lead approves within (and
// why the request needs an admin, when above it), and what the fleet has left for a
// guarantee or a booking.
func (w requestWorld) ceilings(l phrase.Locale, r models.QuotaRequestRow, q models.Quota, x *projectsview.RequestContext) {
	c := r.Parsed()
	gpus := func(n int) string { return l.Count("ctx.gpus", n) }
	most, guaranteed, budget := q.Contract()
	switch r.Kind {
	case models.RequestLimit, models.RequestOverride:
		x.Contract = l.T("ctx.contract_limit", gpus(most))
	case models.RequestGuarantee:
		x.Contract = l.T("ctx.contract_guarantee", gpus(guaranteed))
		room := w.ceil.GuaranteeRoom(q)
		x.Room = l.T("ctx.room_guarantee", specName(l, q.Spec), gpus(room.Ceiling), gpus(room.Taken), gpus(room.Left()))
	case models.RequestBudget:
		x.Contract = l.T("ctx.contract_budget", l.T("ctx.card_hours", l.Int(int(budget))))
	case models.RequestReservation:
		project, spec, _ := w.ceil.BookingRoom(q, c)
		x.Room = l.T("ctx.room_booking", gpus(project.Taken), gpus(project.Ceiling), gpus(project.Left()),
			cmp.Or(q.Spec, c.ReserveSpec), gpus(spec.Taken), gpus(spec.Ceiling), gpus(spec.Left()))
	}
	if fe := models.AboveContract(r.Kind, c, q); fe != nil {
		x.NeedsAdmin = l.Problem(fe.Format, fe.Args, fe.Msg)
	}
}

// specName names a spec, "all specs" for "".
func specName(l phrase.Locale, spec string) string {
	if spec == "" {
		return l.T("quota.all_specs")
	}
	return spec
}

// rate is the pay-as-you-go and overflow rates of spec for the project (its own price, else
// the default list's); for all specs ("") the highest. ok is false when none is set.
func (w requestWorld) rate(projectID int64, spec string) (rate, overflow int64, ok bool) {
	own := false
	for _, p := range w.prices {
		if (spec != "" && p.Spec != spec) || (p.ProjectID != 0 && p.ProjectID != projectID) {
			continue
		}
		switch {
		case spec == "":
			rate, overflow, ok = max(rate, p.RateFen), max(overflow, p.OverflowRateFen), true
		case p.ProjectID == projectID || !own:
			rate, overflow, ok, own = p.RateFen, p.OverflowRateFen, true, p.ProjectID == projectID
		}
	}
	return rate, overflow, ok
}

// signed writes a difference with its sign: "+4 GPUs", "-2 GPUs".
func signed(l phrase.Locale, n int, unit func(int) string) string {
	if n > 0 {
		return "+" + unit(n)
	}
	return unit(n)
}

// overflowText says whether overflow is allowed and at what rate (0: the price list's).
func overflowText(l phrase.Locale, allowed bool, rateFen, listFen int64) string {
	switch {
	case !allowed:
		return l.T("quota.overflow_no")
	case rateFen == 0:
		return l.T("ctx.overflow_list", views.Yuan(listFen))
	}
	return l.T("ctx.overflow_at", views.Yuan(rateFen))
}

// requestKindText names a request's kind.
func requestKindText(l phrase.Locale, kind string) string {
	switch kind {
	case models.RequestGuarantee:
		return l.T("requests.kind.guarantee")
	case models.RequestOverflow:
		return l.T("requests.kind.overflow")
	case models.RequestReservation:
		return l.T("reserve.kind")
	}
	return kind
}

// askedText says what a guarantee or overflow request asks.
func askedText(l phrase.Locale, kind string, c models.QuotaChange) string {
	if kind == models.RequestGuarantee {
		return l.Count("ctx.gpus", *c.GuaranteedGPUs)
	}
	if !*c.OverflowAllowed {
		return l.T("quota.overflow_no")
	}
	if c.OverflowRateFen == 0 {
		return l.T("ctx.overflow_list_short")
	}
	return l.T("ctx.overflow_at", views.Yuan(c.OverflowRateFen))
}

// reservationText says what a reservation request books: cards, window and its repeats.
func reservationText(l phrase.Locale, c models.QuotaChange) string {
	s := l.Count("reserve.asked", c.ReserveGPUs, c.ReserveBegins.Format("2006-01-02 15:04"), c.ReserveEnds.Format("2006-01-02 15:04"))
	if c.ReserveRegion != "" {
		s = l.T("reserve.in_region", s, c.ReserveRegion)
		if c.ReserveSpec != "" {
			s = l.T("reserve.chosen_spec", s, c.ReserveSpec)
		}
	}
	n := l.Int(len(c.Windows()))
	switch {
	case c.ReserveWeeks > 0:
		s = l.T("reserve.weekly", s, l.Int(c.ReserveWeeks))
	case c.ReserveRepeat == models.RepeatDaily:
		s = l.T("reserve.repeats_daily", s, c.ReserveUntil.Format(time.DateOnly), n)
	case c.ReserveRepeat == models.RepeatWeekly:
		var days []string
		for _, d := range c.WeeklyDays() {
			days = append(days, views.WeekdayNames(l)[d])
		}
		s = l.T("reserve.repeats_weekly", s, strings.Join(days, l.T("reserve.day_sep")), c.ReserveUntil.Format(time.DateOnly), n)
	}
	return s
}
