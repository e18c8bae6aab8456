package tasks

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// taskQuotaNeed says, for a task that waits on its project's concurrent-GPU limit, how many
// cards the project holds now of the limit's spec (scheduler.QuotaUse, as on every page), how many the task asks and the limit (the
// temporary one while it is in force), with the quota request that would let it start; nil
// when the task does not wait on such a limit.
func (h *Handler) taskQuotaNeed(ctx context.Context, t models.TaskRow, wait *views.QueueRow, now time.Time) (*tasksview.QuotaNeed, error) {
	if wait == nil || wait.Reason != api.ReasonQuota || wait.Detail != views.DetailConcurrentLimit {
		return nil, nil
	}
	quotas, err := h.store.Quotas(ctx, t.ProjectID)
	if err != nil {
		return nil, err
	}
	view, err := h.Sched.Queue(ctx, now)
	if err != nil {
		return nil, err
	}
	held := view.Use[t.Project] // as the scheduler counts it against the limit
	// The limits that bind the task: of its spec and of all specs; for a task of any spec,
	// every spec's. The one of its own spec is named first, else the first that it exceeds.
	var need *tasksview.QuotaNeed
	for _, q := range quotas {
		if !q.Active(now) || q.Spec != "" && t.Spec != "" && q.Spec != t.Spec {
			continue
		}
		n := &tasksview.QuotaNeed{Spec: q.Spec, Limit: q.Limit(now), Asks: t.GPUs, InUse: held.Of(q.Spec)}
		if n.InUse+n.Asks > n.Limit && (need == nil || q.Spec == t.Spec) {
			need = n
		}
	}
	if need == nil {
		return nil, nil
	}
	v := url.Values{"project": {t.Project}, "spec": {need.Spec}, "kind": {"limit"},
		"value": {strconv.Itoa(need.InUse + need.Asks)}, "task": {strconv.FormatInt(t.ID, 10)}}
	need.RequestURL = "/projects?" + v.Encode() + "#request-" + url.PathEscape(t.Project)
	return need, nil
}
