package replay

import (
	"encoding/csv"
	"io"
	"strconv"

	"kashi/models"
)

// WriteHistory writes a deployment's own tasks as a trace Read takes: job_id, submit_ts,
// start_ts, end_ts (Unix seconds), gpus, group (the project) and spec.
func WriteHistory(w io.Writer, spans []models.TaskSpan) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"job_id", "submit_ts", "start_ts", "end_ts", "gpus", "group", "spec"})
	for _, t := range spans {
		cw.Write([]string{strconv.FormatInt(t.ID, 10), strconv.FormatInt(t.SubmittedAt.Unix(), 10),
			strconv.FormatInt(t.StartedAt.Unix(), 10), strconv.FormatInt(t.EndedAt.Unix(), 10),
			strconv.Itoa(t.GPUs), t.Project, t.Spec})
	}
	cw.Flush()
	return cw.Error()
}
