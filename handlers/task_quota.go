package handlers

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"kashi/models"
	"kashi/views"
)

// taskQuotaNeed says, for a task that waits on its project's concurrent-GPU limit, how many
// cards the project holds now of the limit's spec, how many the task asks and the limit, with
// the quota request that would let it start; nil when the task does not wait on that limit.
func (h *Tasks) taskQuotaNeed(ctx context.Context, t models.TaskRow, wait *views.QueueRow, now time.Time) (*views.QuotaNeed, error) {
	if wait == nil || wait.Reason != views.ReasonQuota || wait.Detail != views.DetailConcurrentLimit {
		return nil, nil
	}
	quotas, err := h.store.Quotas(ctx, t.ProjectID)
	if err != nil {
		return nil, err
	}
	var q *models.Quota
	for i := range quotas {
		if quotas[i].Spec == t.Spec && !now.Before(quotas[i].StartsAt) && now.Before(quotas[i].EndsAt) {
			q = &quotas[i]
		}
	}
	if q == nil {
		return nil, nil
	}
	gpus, err := h.store.BoardGPUs(ctx, models.BoardFilter{})
	if err != nil {
		return nil, err
	}
	need := &views.QuotaNeed{Spec: q.Spec, Limit: q.MaxGPUs, Asks: t.GPUs, InUse: inUseOf(q.Spec, gpusInUse(gpus)[t.Project])}
	v := url.Values{"project": {t.Project}, "spec": {q.Spec}, "kind": {"limit"},
		"value": {strconv.Itoa(need.InUse + need.Asks)}, "task": {strconv.FormatInt(t.ID, 10)}}
	need.RequestURL = "/projects?" + v.Encode() + "#request-" + url.PathEscape(t.Project)
	return need, nil
}
