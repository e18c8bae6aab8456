package tasks

import (
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/scheduler"
	"kashi/views"
)

// queueRow is how the pages and the API show task r waiting as e says at now: the
// scheduler's reason, or, for a task waiting on a data check that has gone silent
// (models.Task.DataCheckSilence), that its data check does not answer.
func queueRow(e scheduler.QueueEntry, r models.TaskRow, now time.Time) views.QueueRow {
	row := views.QueueRow{Position: e.Position, TaskID: r.ID, Name: r.Name, Project: r.Project, Owner: r.Owner,
		GPUs: r.GPUs, Spec: r.Spec, Specs: r.SpecList(), Priority: r.Priority, EstGPUHours: r.EstGPUHours,
		DataReady: r.DataReady, SubmittedAt: r.SubmittedAt, ETAP50: e.ETAP50, ETAP90: e.ETAP90,
		Reason: api.WaitReason(e.Reason), ReasonSpec: e.Spec, Ahead: e.Ahead, Detail: e.Detail,
		PlaceSpec: e.PlaceSpec, PlaceRegion: e.PlaceRegion, PlaceWhy: e.PlaceWhy, Quota: quotaWait(e.Quota),
		MinInterNodeGbps: r.MinInterNodeGbps, MinStorageMBps: r.MinStorageMBps}
	if d := r.DataCheckSilence(now); d > 0 {
		row.Reason, row.Detail, row.DataCheckSilent = api.ReasonDataNotReady, views.DetailDataCheckSilent, d
	}
	return row
}

// quotaWait is the limit a task waits on as the API and the pages show it; nil for none.
func quotaWait(q *scheduler.QuotaWait) *api.QuotaWait {
	if q == nil {
		return nil
	}
	return &api.QuotaWait{Spec: q.Spec, Limit: q.Limit, InUse: q.InUse, Needs: q.Needs}
}
