package bills

import (
	"bytes"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/pilot"
	"kashi/views"
	billsview "kashi/views/bills"
)

// ReportsPage shows the weekly utilization report of ?week= (an ISO week, by default the
// last one that has ended in the billing time zone, or the latest week with card time when
// that one has none, as the page says): per project, node and spec, of every project for
// finance and admins and of their own projects for members; and the week's setting changes
// with what each saved, as the weekly message lists them (pilot.WeekChanges), linked to their
// pages for those who may open them. GET /reports.
func (h *Handler) ReportsPage(c echo.Context) error {
	r, week, loc, err := h.weekReport(c)
	if err != nil {
		return err
	}
	d := reportData(r, week, loc, h.Now())
	if d.Changes, err = h.weekChanges(c, r, loc); err != nil {
		return err
	}
	if last := billing.WeekOf(h.Now(), loc).Prev(); c.QueryParam("week") == "" && week != last {
		d.Notice = billsview.LatestWeekNotice(handlers.Locale(c), last.String(), week.String())
	}
	return handlers.Render(c, http.StatusOK, billsview.Report(handlers.Locale(c), d))
}

// ReportsCSV downloads the numbers of the weekly report as CSV. GET /reports.csv.
func (h *Handler) ReportsCSV(c echo.Context) error {
	r, week, _, err := h.weekReport(c)
	if err != nil {
		return err
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, mimeCSV)
	w.Header().Set(echo.HeaderContentDisposition, attachment("kashi-report-"+week.String()+".csv"))
	w.WriteHeader(http.StatusOK)
	return billing.WriteReportCSV(w, r)
}

// ReportsXLSX downloads the weekly report as a workbook, numbers as numbers. GET
// /reports.xlsx.
func (h *Handler) ReportsXLSX(c echo.Context) error {
	r, week, _, err := h.weekReport(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := billing.WriteReportXLSX(&buf, r); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, attachment("kashi-report-"+week.String()+".xlsx"))
	return c.Blob(http.StatusOK, mimeXLSX, buf.Bytes())
}

// weekReport computes the report the request asks for.
func (h *Handler) weekReport(c echo.Context) (billing.Report, billing.Week, *time.Location, error) {
	ctx := c.Request().Context()
	now := h.Now()
	loc, err := billing.Location(ctx, h.store)
	if err != nil {
		return billing.Report{}, billing.Week{}, nil, err
	}
	week := billing.WeekOf(now, loc).Prev()
	if q := c.QueryParam("week"); q != "" {
		if week, err = billing.ParseWeek(q); err != nil {
			return billing.Report{}, billing.Week{}, nil, handlers.BadRequest("week", "week must be an ISO week as YYYY-Www, e.g. 2026-W10")
		}
	} else {
		from, to := week.Bounds(loc)
		at, _, err := h.openAt(ctx, handlers.Who(c), from, to, now)
		if err != nil {
			return billing.Report{}, billing.Week{}, nil, err
		}
		week = billing.WeekOf(at, loc)
	}
	var only map[int64]bool
	if p := handlers.Who(c); !p.SeesAllBills() {
		only = make(map[int64]bool, len(p.Projects))
		for id := range p.Projects {
			only[id] = true
		}
	}
	r, err := billing.WeekReport(ctx, h.store, week.String(), only, now)
	if err != nil {
		return billing.Report{}, billing.Week{}, nil, billError(err)
	}
	return r, week, loc, nil
}

// reportData is the report as the page shows it, times in loc.
func reportData(r billing.Report, week billing.Week, loc *time.Location, now time.Time) billsview.ReportData {
	d := billsview.ReportData{Week: week.String(), Prev: week.Prev().String(), From: r.From.In(loc), To: r.To.In(loc),
		AsOf: r.AsOf.In(loc), TimeZone: loc.String(), Total: usageView(r.Total), ShowUnheld: r.Total.ProvisionedS > 0}
	next := week.Next()
	if from, _ := next.Bounds(loc); !from.After(now) {
		d.Next = next.String()
	}
	for _, u := range r.Projects {
		d.Projects = append(d.Projects, usageView(u))
	}
	for _, u := range r.Nodes {
		d.Nodes = append(d.Nodes, usageView(u))
	}
	for _, u := range r.Specs {
		d.Specs = append(d.Specs, usageView(u))
	}
	for _, t := range r.TopIdle {
		d.TopIdle = append(d.TopIdle, billsview.ReportIdleTask{TaskID: t.TaskID, Task: t.Task, Project: t.Project, Owner: t.Owner,
			Spec: t.Spec, GPUs: t.GPUs, Ending: t.Ending, NominalS: t.NominalS, EffectiveS: t.EffectiveS, IdleS: t.Idle})
	}
	for _, m := range r.Misses {
		d.Misses = append(d.Misses, billsview.ReportMiss{TaskID: m.TaskID, Task: m.Task, Project: m.Project, Owner: m.Owner,
			EstimatedS: m.EstimatedS, ActualS: m.ActualS, MissS: m.MissS})
	}
	output := func(os []billing.OutputCost) []billsview.ReportOutput {
		var out []billsview.ReportOutput
		for _, o := range os {
			out = append(out, billsview.ReportOutput{Key: o.Key, Tasks: o.Tasks, Units: o.Units, NominalS: o.NominalS,
				EffectiveS: o.EffectiveS, NominalPerUnitS: o.NominalPerUnitS(), EffectivePerUnitS: o.EffectivePerUnitS()})
		}
		return out
	}
	d.OutputProjects, d.OutputTags = output(r.OutputProjects), output(r.OutputTags)
	for _, u := range r.Templates {
		d.Templates = append(d.Templates, views.ReportTemplate{TemplateID: u.TemplateID, Template: u.Template, Project: u.Project,
			Runs: u.Runs, NominalS: u.NominalS, EffectiveS: u.EffectiveS, CostFen: u.CostFen, MissingPrice: u.MissingPrice})
	}
	for _, u := range r.Models {
		d.Models = append(d.Models, billsview.ReportModel{ServiceID: u.ServiceID, Model: u.Model, Service: u.Service, Project: u.Project,
			Replicas: u.Runs, NominalS: u.NominalS, EffectiveS: u.EffectiveS, CostFen: u.CostFen, MissingPrice: u.MissingPrice})
	}
	d.Reruns, d.Trials = classUses(r.Reruns), classUses(r.Trials)
	d.Pipelines = stageCosts(r.Pipelines)
	for _, a := range r.Advice {
		d.Advice = append(d.Advice, billsview.ReportAdvice{TaskID: a.TaskID, Task: a.Task, Project: a.Project, Owner: a.Owner,
			RuntimeS: a.RuntimeS, Advice: *handlers.AdviceView(&a.Advice), SavingFen: a.SavingFen})
	}
	return d
}

// weekChanges are the changes made in r's week, each with the sentence the weekly message
// says of it, linked to its page when the caller may open it (mayOpenChange).
func (h *Handler) weekChanges(c echo.Context, r billing.Report, loc *time.Location) ([]billsview.ReportChange, error) {
	cs, err := pilot.WeekChanges(c.Request().Context(), h.store, h.changes.Measure, r.From, r.To, h.Now())
	if err != nil {
		return nil, err
	}
	l, who := handlers.Locale(c), handlers.Who(c)
	out := make([]billsview.ReportChange, len(cs))
	for i, ch := range cs {
		out[i] = billsview.ReportChange{Kind: ch.Ref.Kind, Name: ch.Name(l), URL: ch.Ref.Path(), At: ch.At.In(loc), By: ch.Who(l),
			Note: ch.Note, Sentence: ch.Sentence(l, loc), Linked: mayOpenChange(who, ch.Ref)}
	}
	return out, nil
}

// usageView is one row of the report.
func usageView(u billing.Usage) billsview.ReportUsage {
	return billsview.ReportUsage{Key: u.Key, NominalS: u.NominalS, EffectiveS: u.EffectiveS, IdleS: u.Idle,
		OtherS: u.NominalS - u.EffectiveS - u.Idle, LowUtilS: u.LowUtil, ProvisionedS: u.ProvisionedS, UnheldS: u.UnheldS}
}

// classUses are the week's groups of a ledger class with its own bill line (reruns, trials)
// as the report's page lists them.
func classUses(groups []billing.GroupUsage) []billsview.ReportClassUse {
	out := make([]billsview.ReportClassUse, len(groups))
	for i, g := range groups {
		out[i] = billsview.ReportClassUse{Project: g.Project, Count: g.Runs, Seconds: g.NominalS, CostFen: g.CostFen,
			MissingPrice: g.MissingPrice}
	}
	return out
}

// mayOpenChange: who may open the page of the change ref names, as its route and handler
// let them: a pool's change leads and admins, a price's those who read the prices (finance,
// admins), a quota's or a project's reclaim override's those who see its project (its
// members and leads, admins).
func mayOpenChange(who *handlers.Principal, ref pilot.Ref) bool {
	switch ref.Kind {
	case pilot.KindPrice:
		return who.Allows(handlers.Finance)
	case pilot.KindQuota, pilot.KindReclaim:
		return who.CanSee(ref.Project)
	}
	return who.Allows(handlers.Lead)
}
