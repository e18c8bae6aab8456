package tasks

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/rightsize"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// TaskPage shows one task: its state, why it waits, history, cards with their charts, log and
// buttons; through htmx only its live part, which the page refreshes while the task can
// change. A viewer outside the task's project sees who holds what, as the board shows it, but
// not the log or the command. GET /tasks/:id.
func (h *Handler) TaskPage(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	d, err := h.taskPageData(c, id)
	if err != nil {
		return err
	}
	c.Response().Header().Add("Vary", "HX-Request, Accept-Language, Cookie")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	l := handlers.Locale(c)
	if handlers.IsHTMX(c) {
		return handlers.Render(c, http.StatusOK, tasksview.TaskLive(l, d))
	}
	return handlers.Render(c, http.StatusOK, tasksview.TaskPage(l, d))
}

// TaskLogPart answers the task page's log refresh with the log's tail as text.
// GET /tasks/:id/log.
func (h *Handler) TaskLogPart(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if _, err := h.visibleTask(c, id); err != nil {
		return err
	}
	lg, err := h.store.TaskLogTail(c.Request().Context(), id)
	if err != nil {
		return handlers.StoreError(err)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return c.String(http.StatusOK, lg.Tail)
}

// taskPageData reads everything the task page shows.
func (h *Handler) taskPageData(c echo.Context, id int64) (tasksview.TaskPageData, error) {
	ctx := c.Request().Context()
	now := h.Now().In(h.Loc())
	t, err := h.store.TaskByID(ctx, id)
	if err != nil {
		return tasksview.TaskPageData{}, handlers.StoreError(err)
	}
	who := handlers.Who(c)
	d := tasksview.TaskPageData{Now: now, Task: taskView(t), Full: who.CanSee(t.ProjectID), CanRun: who.CanRun(t.ProjectID),
		Poll: t.EndedAt == nil}
	if !d.Full {
		d.Task.Command, d.Task.DataCheck = nil, ""
	}
	events, err := h.store.TaskEvents(ctx, id)
	if err != nil {
		return d, err
	}
	for _, e := range events {
		ev := tasksview.TaskEventView{At: e.At.In(now.Location()), From: e.From, To: e.To,
			Released: models.TaskEnding(e.To, e.Reason) == models.EndReleased}
		if d.Full {
			// A reason may quote the task's command or its error: its project's only.
			ev.Reason = e.Reason
		}
		d.Events = append(d.Events, ev)
	}
	attempts, err := h.store.TaskAttempts(ctx, id)
	if err != nil {
		return d, err
	}
	d.Attempts = attemptViews(attempts, now.Location(), d.Full)
	if !d.Full {
		d.Task.Checkpoint = ""
	}
	held, err := h.heldCards(ctx, id, now)
	if err != nil {
		return d, err
	}
	d.Cards, d.CardHours = taskCards(held, now, who.Admin())
	if d.Full {
		a, err := h.taskAdvice(ctx, t, held, now)
		if err != nil {
			return d, err
		}
		d.Advice = handlers.AdviceView(a)
	}
	if pending(t) {
		if d.Wait, err = h.taskWait(ctx, t, now); err != nil {
			return d, err
		}
		if d.CanRun {
			if d.Quota, err = h.taskQuotaNeed(ctx, t, d.Wait, now); err != nil {
				return d, err
			}
		}
	}
	if d.Full {
		if d.RateFen, err = h.taskRate(ctx, t, d.Cards, now); err != nil {
			return d, err
		}
		d.CostFen = int64(d.CardHours*float64(d.RateFen) + 0.5)
		lg, err := h.store.TaskLogTail(ctx, id)
		if err == nil {
			d.Log = lg.Tail
		}
		if d.CanRun && t.EndedAt == nil {
			// Keep and release show to those who may answer the notice: its owner, the
			// project's leads, admins.
			notices, err := h.store.ReclaimNotices(ctx, who.User.Name)
			if err != nil {
				return d, err
			}
			pol, err := h.reclaimOf(ctx, id)
			if err != nil {
				return d, err
			}
			d.KeepFor = pol.KeepFor
			for _, n := range notices {
				if n.ID == id && n.NoticeAt != nil {
					at := n.NoticeAt.Add(pol.Grace)
					d.Notice, d.ReclaimAt = true, &at
				}
			}
		}
	}
	return d, nil
}

// taskRate is the pay-as-you-go price per card-hour of the task's cards this month: its
// project's price of the spec, else the default one; 0 when none is set.
func (h *Handler) taskRate(ctx context.Context, t models.TaskRow, cards []tasksview.TaskCardView, now time.Time) (int64, error) {
	spec := t.Spec
	if len(cards) > 0 {
		spec = cards[0].Spec
	}
	prices, err := h.store.Prices(ctx, now.Format("2006-01"))
	if err != nil {
		return 0, err
	}
	return rightsize.Rate(prices, spec, t.ProjectID), nil
}

// taskCards are the cards a task held as the page shows them, each with its chart (and its
// UUID when uuids is true, for admins), and the card-hours held up to now.
func taskCards(cards []heldCard, now time.Time, uuids bool) ([]tasksview.TaskCardView, float64) {
	var out []tasksview.TaskCardView
	var held time.Duration
	for _, c := range cards {
		v := tasksview.TaskCardView{Node: c.Hostname, Index: c.Index, Spec: c.Spec, MemTotalMiB: c.MemTotalMiB,
			StartedAt: c.StartedAt.In(now.Location())}
		if uuids {
			v.UUID = c.UUID
		}
		if c.EndedAt != nil {
			v.EndedAt = c.EndedAt.In(now.Location())
		}
		held += c.End.Sub(c.StartedAt)
		for _, r := range c.Rollups {
			if r.N == 0 {
				continue
			}
			v.Points = append(v.Points, tasksview.ChartPoint{At: time.Unix(r.Bucket, 0), UtilPct: int(r.UtilSum / r.N), MemMiB: r.MemSum / r.N})
		}
		out = append(out, v)
	}
	return out, held.Hours()
}

// taskWait is why a pending task waits now and when it may start, from the scheduler's view.
func (h *Handler) taskWait(ctx context.Context, t models.TaskRow, now time.Time) (*views.QueueRow, error) {
	st, err := h.loadQueue(ctx, now)
	if err != nil {
		return nil, err
	}
	for e, r := range st.entries {
		if r.ID == t.ID {
			row := queueRow(e, r, now)
			return &row, nil
		}
	}
	return nil, nil
}

// attemptViews are a task's attempts as its page shows them, times in loc; why each ended and
// its checkpoint's place to its project only (full).
func attemptViews(rows []models.AttemptRow, loc *time.Location, full bool) []tasksview.AttemptView {
	out := make([]tasksview.AttemptView, len(rows))
	for i, a := range rows {
		v := tasksview.AttemptView{Attempt: a.Attempt, Current: a.Current, Nodes: a.Nodes, Ending: a.Ending, LostS: a.LostS}
		if a.StartedAt != nil {
			v.StartedAt = a.StartedAt.In(loc)
		}
		if a.EndedAt != nil {
			v.EndedAt = a.EndedAt.In(loc)
		}
		if a.CheckpointAt != nil {
			v.CheckpointAt = a.CheckpointAt.In(loc)
		}
		if full {
			v.Reason, v.Checkpoint = a.Reason, a.Checkpoint
		}
		out[i] = v
	}
	return out
}

// taskView maps a task to what the pages show of it.
func taskView(t models.TaskRow) tasksview.TaskView {
	v := tasksview.TaskView{ID: t.ID, Name: t.Name, Project: t.Project, Owner: t.Owner, State: api.TaskState(t.State), GPUs: t.GPUs,
		Spec: t.Spec, Queue: t.Queue, Priority: t.Priority, EstGPUHours: t.EstGPUHours,
		MaxRuntime: time.Duration(t.MaxRuntimeS) * time.Second, DataReady: t.DataReady, SubmittedAt: t.SubmittedAt,
		ExitCode: t.ExitCode, OutputUnits: t.OutputUnits, OutputUnit: t.OutputUnit, Stopping: t.StopState != "" && t.EndedAt == nil,
		Attempt: max(t.Attempt, 1), MaxAttempts: max(t.MaxAttempts, 1), RerunOnFailure: t.RerunOnFailure, Checkpoint: t.LastCheckpoint,
		MinInterNodeGbps: t.MinInterNodeGbps, MinStorageMBps: t.MinStorageMBps, AllowNoInterconnect: t.AllowNoInterconnect}
	if t.LastCheckpointAt != nil {
		v.CheckpointAt = *t.LastCheckpointAt
	}
	if t.StartedAt != nil {
		v.StartedAt = *t.StartedAt
	}
	if t.EndedAt != nil {
		v.EndedAt = *t.EndedAt
	}
	if t.TrialID != nil {
		v.TrialID = *t.TrialID
	}
	v.Service = t.Service()
	json.Unmarshal([]byte(t.Command), &v.Command)
	if t.State == models.TaskWaitingData && t.DataCheck != "" {
		var dc models.DataCheck
		json.Unmarshal([]byte(t.DataCheck), &dc) // written by the store; always decodes
		v.DataCheck = dc.Path + dc.URL
	}
	if t.DataCheckedAt != nil {
		v.DataCheckedAt = *t.DataCheckedAt
	}
	// Cards released in answer to an idle notice: the task ends in state reclaimed (as the
	// API says), which pages name "released", as bills do.
	v.Released = models.TaskEnding(t.State, t.Reason) == models.EndReleased
	return v
}

// TaskCancelForm is the task page's Cancel button: it cancels a waiting task, or stops a
// running one, and shows the task again. POST /tasks/:id/cancel.
func (h *Handler) TaskCancelForm(c echo.Context) error {
	return h.changeTaskForm(c, func(ctx context.Context, id int64) error {
		return h.store.CancelTask(ctx, id, handlers.Who(c).User.Name, h.Now())
	})
}

// TaskReadyForm is the task page's "Mark data ready" button. POST /tasks/:id/ready.
func (h *Handler) TaskReadyForm(c echo.Context) error {
	return h.changeTaskForm(c, func(ctx context.Context, id int64) error {
		return h.store.MarkTaskReady(ctx, id, "data marked ready", h.Now())
	})
}

// changeTaskForm applies change to the task :id the caller runs, wakes the scheduler and
// sends the browser back to the task's page.
func (h *Handler) changeTaskForm(c echo.Context, change func(ctx context.Context, id int64) error) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if _, err := h.runnableTask(c, id); err != nil {
		return err
	}
	if err := change(c.Request().Context(), id); err != nil {
		return handlers.StoreError(err)
	}
	h.Sched.Trigger()
	return c.Redirect(http.StatusSeeOther, "/tasks/"+strconv.FormatInt(id, 10))
}
