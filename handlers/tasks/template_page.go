package tasks

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/schedule"
	tasksview "kashi/views/tasks"
)

// TemplatesPage shows a project's templates with their uses, and for its leads the form
// that adds one. GET /projects/:id/templates.
func (h *Handler) TemplatesPage(c echo.Context) error {
	p, err := h.seenProject(c)
	if err != nil {
		return err
	}
	d, err := h.templatesData(c, p, templateFormOf("", "", models.TemplateBody{Queue: models.QueueLong, Priority: models.PriorityNormal, GPUs: 1}))
	if err != nil {
		return err
	}
	return handlers.Render(c, http.StatusOK, tasksview.Templates(handlers.Locale(c), d))
}

// templatesData builds the templates page of project p with the create form f.
func (h *Handler) templatesData(c echo.Context, p models.Project, f tasksview.TemplateForm) (tasksview.TemplatesData, error) {
	ctx := c.Request().Context()
	rows, err := h.store.Templates(ctx, p.ID)
	if err != nil {
		return tasksview.TemplatesData{}, err
	}
	specs, regions, err := h.placeChoices(ctx)
	if err != nil {
		return tasksview.TemplatesData{}, err
	}
	d := tasksview.TemplatesData{ProjectID: p.ID, Project: p.Name, CanEdit: handlers.Who(c).Leads(p.ID), Form: f, Specs: specs, Regions: regions}
	for _, r := range rows {
		b := r.Fields()
		d.Templates = append(d.Templates, tasksview.TemplateRowView{ID: r.ID, Name: r.Name, Description: r.Description,
			Version: r.Version, Uses: r.Uses, GPUs: b.GPUs, Specs: b.SpecChoices(), Queue: b.Queue, UpdatedAt: r.UpdatedAt.In(h.Loc()),
			Stages: len(b.Stages)})
	}
	return d, nil
}

// TemplatePage shows a template: its fields, the link that submits from it, its schedules
// with their next runs and history, its versions, and for leads the forms that change and
// schedule it. ?notice= confirms what a form just saved. GET /templates/:id.
func (h *Handler) TemplatePage(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	d, err := h.templateData(c, t)
	if err != nil {
		return err
	}
	switch n := c.QueryParam("notice"); n {
	case tasksview.NoticeCreated, tasksview.NoticeSaved, tasksview.NoticeScheduled, tasksview.NoticeSuspended, tasksview.NoticeResumed,
		tasksview.NoticeRolledBack, tasksview.NoticeUnchanged:
		d.Notice = n
	}
	return handlers.Render(c, http.StatusOK, tasksview.Template(handlers.Locale(c), d))
}

// templateData builds template t's page with its forms filled from its fields.
func (h *Handler) templateData(c echo.Context, t models.TaskTemplate) (tasksview.TemplateData, error) {
	ctx := c.Request().Context()
	p, err := h.store.ProjectByID(ctx, t.ProjectID)
	if err != nil {
		return tasksview.TemplateData{}, handlers.StoreError(err)
	}
	uses, err := h.store.TemplateUses(ctx, t.ID)
	if err != nil {
		return tasksview.TemplateData{}, err
	}
	specs, regions, err := h.placeChoices(ctx)
	if err != nil {
		return tasksview.TemplateData{}, err
	}
	body := t.Fields()
	fields := templateFormOf(t.Name, t.Description, body)
	d := tasksview.TemplateData{ID: t.ID, ProjectID: p.ID, Project: p.Name, Name: t.Name, Description: t.Description,
		Version: t.Version, Uses: uses, Fields: fields, Form: fields, CanEdit: handlers.Who(c).Leads(p.ID),
		Schedulable: len(body.EnvNames) == 0, Specs: specs, Regions: regions, Zones: scheduleZones,
		ScheduleForm: tasksview.ScheduleForm{Cron: "0 22 * * 1-5", TimeZone: h.Loc().String(), Overlap: string(schedule.OverlapSkip), StartDeadlineMin: "60"}}
	versions, err := h.store.TemplateVersions(ctx, t.ID)
	if err != nil {
		return d, err
	}
	for _, v := range versions {
		vv := tasksview.TemplateVersionView{Version: v.Version, By: v.By, At: v.At.In(h.Loc()), Restores: v.Restores}
		for _, ch := range v.Changes() {
			vv.Changes = append(vv.Changes, tasksview.FieldChangeView(ch))
		}
		d.Versions = append(d.Versions, vv)
	}
	for _, st := range body.Stages {
		d.Stages = append(d.Stages, tasksview.TemplateStageView{Name: st.Name, After: st.After, AfterEnded: st.AfterEnded,
			Fields: templateFormOf("", "", st.Task)})
	}
	d.CanSubmit = handlers.Who(c).CanRun(p.ID)
	if d.Schedules, err = h.scheduleViews(ctx, t.ID); err != nil {
		return d, err
	}
	if d.Advice, err = h.templateAdvice(ctx, t, h.Now()); err != nil {
		return d, err
	}
	return d, nil
}

// scheduleViews are a template's schedules with their next five runs and latest runs, in
// each schedule's zone.
func (h *Handler) scheduleViews(ctx context.Context, templateID int64) ([]tasksview.ScheduleView, error) {
	list, err := h.store.Schedules(ctx, templateID)
	if err != nil {
		return nil, err
	}
	var out []tasksview.ScheduleView
	for _, ts := range list {
		runs, err := h.store.ScheduleRuns(ctx, ts.ID, runsShown)
		if err != nil {
			return nil, err
		}
		j := toScheduleJSON(ts, runs, h.Now())
		loc, err := time.LoadLocation(ts.TimeZone)
		if err != nil {
			loc = time.UTC
		}
		sv := tasksview.ScheduleView{ID: ts.ID, Cron: ts.Cron, TimeZone: ts.TimeZone, Overlap: ts.Overlap,
			StartDeadline: time.Duration(ts.StartDeadlineS) * time.Second, Suspended: ts.Suspended, SuspendedWhy: ts.SuspendedWhy, Owner: ts.Owner}
		for _, n := range j.Next {
			sv.Next = append(sv.Next, n.In(loc))
		}
		for _, r := range j.Runs {
			rv := tasksview.ScheduleRunView{PlannedAt: r.PlannedAt.In(loc), Outcome: r.Outcome, Detail: r.Detail, TaskState: r.TaskState}
			if r.TaskID != nil {
				rv.TaskID = *r.TaskID
			}
			if r.PipelineID != nil {
				rv.PipelineID = *r.PipelineID
			}
			sv.Runs = append(sv.Runs, rv)
		}
		out = append(out, sv)
	}
	return out, nil
}

// scheduleZones are the time zones the schedule form suggests; any IANA name is accepted.
var scheduleZones = []string{"Asia/Shanghai", "Asia/Hong_Kong", "Asia/Singapore", "Asia/Tokyo", "UTC",
	"Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles"}

// templateFormOf is the template form filled from a template's fields.
func templateFormOf(name, description string, b models.TemplateBody) tasksview.TemplateForm {
	f := tasksview.TemplateForm{Name: name, Description: description, Specs: b.SpecChoices(), Regions: b.Regions, Queue: b.Queue, Priority: b.Priority,
		Command: strings.Join(b.Command, "\n"), EnvNames: strings.Join(b.EnvNames, "\n"), Workdir: b.Workdir,
		Image: b.Image, Deferrable: b.Deferrable}
	if b.GPUs > 0 {
		f.GPUs = strconv.Itoa(b.GPUs)
	}
	if b.EstGPUHours > 0 {
		f.EstGPUHours = strconv.FormatFloat(b.EstGPUHours, 'f', -1, 64)
	}
	if b.MaxRuntimeS > 0 {
		f.MaxRuntimeH = strconv.FormatFloat(float64(b.MaxRuntimeS)/3600, 'f', -1, 64)
	}
	if b.MaxAttempts > 0 {
		f.MaxAttempts = strconv.Itoa(b.MaxAttempts)
	}
	f.RerunOnFailure = b.RerunOnFailure
	f.MinInterNodeGbps, f.MinStorageMBps, f.AllowNoInterconnect = positive(b.MinInterNodeGbps), positive(b.MinStorageMBps), b.AllowNoInterconnect
	if b.DataCheck != nil {
		f.DataCheck = b.DataCheck.Path + b.DataCheck.URL
	}
	f.DataLocations = dataLocationText(b.DataLocations)
	return f
}

// placeChoices are the specs (those of cards present) and the regions (those of pools) the
// template form offers.
func (h *Handler) placeChoices(ctx context.Context) (specs, regions []string, err error) {
	if _, specs, _, err = h.store.BoardOptions(ctx); err != nil {
		return nil, nil, err
	}
	regions, err = h.store.PoolRegions(ctx)
	return specs, regions, err
}

// dataLocationText is data locations as region=location lines, by region.
func dataLocationText(locs map[string]string) string {
	var b strings.Builder
	for _, region := range slices.Sorted(maps.Keys(locs)) {
		b.WriteString(region + "=" + locs[region] + "\n")
	}
	return b.String()
}
