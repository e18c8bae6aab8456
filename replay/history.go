package replay

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"kashi/models"
)

// WriteHistory writes a deployment's own tasks as a trace Read takes: job_id, submit_ts,
// start_ts, end_ts (Unix seconds), gpus, group (the project) and spec, and what each task
// declared (est_s, its estimated runtime, empty for none; max_runtime_s, empty for none;
// queue and priority), which --estimates declared replays; and how it ended (status), its
// pipeline stage and its parents' job_ids (';' between them), so that a replay of the history
// runs its pipelines' stages in order.
func WriteHistory(w io.Writer, spans []models.TaskSpan) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"job_id", "submit_ts", "start_ts", "end_ts", "gpus", "group", "spec", "est_s", "max_runtime_s", "queue", "priority",
		"status", "stage", "parent"})
	for _, t := range spans {
		est, maxRT := "", ""
		if t.EstGPUHours > 0 && t.GPUs > 0 {
			est = strconv.FormatInt(int64(t.EstGPUHours/float64(t.GPUs)*3600), 10)
		}
		if t.MaxRuntimeS > 0 {
			maxRT = strconv.FormatInt(t.MaxRuntimeS, 10)
		}
		cw.Write([]string{strconv.FormatInt(t.ID, 10), strconv.FormatInt(t.SubmittedAt.Unix(), 10),
			strconv.FormatInt(t.StartedAt.Unix(), 10), strconv.FormatInt(t.EndedAt.Unix(), 10),
			strconv.Itoa(t.GPUs), t.Project, t.Spec, est, maxRT, t.Queue, t.Priority, t.State, t.Stage, parents(t.Parents)})
	}
	cw.Flush()
	return cw.Error()
}

// parents is a parent column's value: the job ids, ';' between them.
func parents(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ";")
}
