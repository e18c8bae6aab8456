package tasks

import (
	"errors"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	tasksview "kashi/views/tasks"
)

// resubmitForm is a new submit form, filled from the task named by ?resubmit= when there is
// one: the same project, name, cards, specs and regions, lane, limits, command, working
// directory and data check. The environment's values are secret and never shown, so its
// names come back as KEY= lines to fill in again. A task submitted from a template stays
// bound to it, at its current version (whose data locations the submit applies), unless the
// template is gone. A task the caller cannot run gives 404 or 403, as its other buttons do.
func (h *Handler) resubmitForm(c echo.Context) (tasksview.TaskForm, error) {
	v := c.QueryParam("resubmit")
	if v == "" {
		return newTaskForm(tasksview.TaskFormValues{}), nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return tasksview.TaskForm{}, handlers.BadRequest("resubmit", "resubmit must be a task id")
	}
	t, err := h.runnableTask(c, id)
	if err != nil {
		return tasksview.TaskForm{}, err
	}
	form := newTaskForm(resubmitValues(t))
	if t.TemplateID == nil {
		return form, nil
	}
	tpl, err := visibleTemplate(c, h.store, *t.TemplateID)
	if errors.Is(err, models.ErrNotFound) {
		return form, nil
	}
	if err != nil {
		return tasksview.TaskForm{}, handlers.StoreError(err)
	}
	return withTemplate(form, tpl), nil
}

// resubmitValues are the form's values of task t, as resubmitForm describes them.
func resubmitValues(t models.TaskRow) tasksview.TaskFormValues {
	j := taskFields(t)
	vals := tasksview.TaskFormValues{Project: j.Project, Name: j.Name, Owner: j.Owner, GPUs: strconv.Itoa(j.GPUs),
		Specs: models.TemplateBody{Spec: j.Spec, Specs: j.Specs}.SpecChoices(), Regions: j.Regions,
		Queue: j.Queue, Priority: j.Priority, Command: strings.Join(j.Command, "\n"), Workdir: j.Workdir, Image: j.Image,
		Deferrable: j.Deferrable, MaxRuntimeH: strconv.FormatFloat(float64(j.MaxRuntimeS)/3600, 'f', -1, 64),
		MinInterNodeGbps: positive(j.MinInterNodeGbps), MinStorageMBps: positive(j.MinStorageMBps), AllowNoInterconnect: j.AllowNoInterconnect}
	if j.EstGPUHours > 0 {
		vals.EstGPUHours = strconv.FormatFloat(j.EstGPUHours, 'f', -1, 64)
	}
	if t.Service() { // a service runs until stopped: no runtime limit to copy
		vals.MaxRuntimeH, vals.Model, vals.Replicas = "", j.Model, strconv.Itoa(j.Replicas)
		vals.MetricsPort, vals.MetricsPath, vals.HealthPath = strconv.Itoa(j.MetricsPort), j.MetricsPath, j.HealthPath
		if j.TTFTTargetMS > 0 {
			vals.TTFTTargetMS = strconv.Itoa(j.TTFTTargetMS)
		}
	}
	for _, name := range j.EnvNames {
		vals.Env += name + "=\n"
	}
	if j.DataCheck != nil {
		vals.DataCheck = j.DataCheck.Path + j.DataCheck.URL
	}
	return vals
}
