package handlers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"kashi/api"
	"kashi/models"
)

// The agent API's wire types (package api) mapped to and from the store's own types, with
// the wire limits checked here at the edge.

func registrationOf(req api.RegisterRequest) models.NodeRegistration {
	gpus := make([]models.GPUInfo, len(req.GPUs))
	for i, g := range req.GPUs {
		gpus[i] = models.GPUInfo(g)
	}
	return models.NodeRegistration{Hostname: req.Hostname, Pool: req.Pool, MachineID: req.MachineID, GPUs: gpus}
}

// maxProcessText bounds the user and command of a GPU process.
const maxProcessText = 256

func readingsOf(req api.SamplesRequest) ([]models.Reading, error) {
	if len(req.Samples) > api.MaxSamplesPerBatch {
		return nil, &models.FieldError{Field: "samples",
			Msg: fmt.Sprintf("at most %d samples per batch, got %d", api.MaxSamplesPerBatch, len(req.Samples))}
	}
	out := make([]models.Reading, len(req.Samples))
	for i, s := range req.Samples {
		out[i] = models.Reading{UUID: s.UUID, TS: s.TS, MemoryUsedMiB: s.MemoryUsedMiB, UtilPct: s.UtilPct,
			TempC: s.TempC, PowerW: s.PowerW}
		for j, p := range s.Processes {
			for name, v := range map[string]string{"user": p.User, "command": p.Command} {
				if !utf8.ValidString(v) || len(v) > maxProcessText {
					return nil, &models.FieldError{Field: fmt.Sprintf("samples[%d].processes[%d].%s", i, j, name),
						Msg: fmt.Sprintf("must be valid UTF-8 of at most %d bytes", maxProcessText)}
				}
			}
			out[i].Processes = append(out[i].Processes, models.ProcessReading(p))
		}
	}
	return out, nil
}

// maxLogPieces bounds the log pieces of one batch.
const maxLogPieces = 256

func logPiecesOf(logs []api.TaskLog) ([]models.LogPiece, error) {
	if len(logs) > maxLogPieces {
		return nil, &models.FieldError{Field: "logs", Msg: fmt.Sprintf("at most %d pieces per batch", maxLogPieces)}
	}
	out := make([]models.LogPiece, len(logs))
	for i, l := range logs {
		field := fmt.Sprintf("logs[%d]", i)
		switch {
		case l.TaskID <= 0:
			return nil, &models.FieldError{Field: field + ".task_id", Msg: "must be a task id"}
		case l.Offset < 0:
			return nil, &models.FieldError{Field: field + ".offset", Msg: "must not be negative"}
		case len(l.Text) > api.MaxLogTailBytes || !utf8.ValidString(l.Text):
			return nil, &models.FieldError{Field: field + ".text", Msg: fmt.Sprintf("must be valid UTF-8 of at most %d bytes", api.MaxLogTailBytes)}
		}
		out[i] = models.LogPiece(l)
	}
	return out, nil
}

func assignmentsOf(as []models.Assignment) api.AssignmentsResponse {
	out := api.AssignmentsResponse{Tasks: make([]api.Assignment, len(as))}
	for i, a := range as {
		out.Tasks[i] = api.Assignment(a)
	}
	return out
}

// maxRunningIDs bounds the task ids one poll may list as running.
const maxRunningIDs = 1000

// runningOf parses the comma-separated task ids of an assignments poll.
func runningOf(q string) ([]int64, error) {
	if q == "" {
		return nil, nil
	}
	parts := strings.Split(q, ",")
	if len(parts) > maxRunningIDs {
		return nil, &models.FieldError{Field: api.QueryRunning, Msg: fmt.Sprintf("at most %d task ids", maxRunningIDs)}
	}
	ids := make([]int64, len(parts))
	for i, p := range parts {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id <= 0 {
			return nil, &models.FieldError{Field: api.QueryRunning, Msg: fmt.Sprintf("%q is not a task id", p)}
		}
		ids[i] = id
	}
	return ids, nil
}

func reportOf(req api.TaskStatusRequest) models.TaskReport { return models.TaskReport(req) }
