package agent

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kashi/api"
	"kashi/models"
	"kashi/serving"
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
			TempC: s.TempC, PowerW: s.PowerW, XID: s.XID}
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

// waitOf reads the assignments request's wait: a duration from 0 to api.MaxAssignmentsWait.
func waitOf(q string) (time.Duration, error) {
	if q == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(q)
	if err != nil || d < 0 || d > api.MaxAssignmentsWait {
		return 0, &models.FieldError{Field: api.QueryWait, Msg: fmt.Sprintf("%q is not a wait from 0s to %s", q, api.MaxAssignmentsWait)}
	}
	return d, nil
}

func reportOf(req api.TaskStatusRequest) models.TaskReport { return models.TaskReport(req) }

// servingOf checks a batch's serving reports and maps them onto the store's.
func servingOf(reports []api.ServingReport) ([]models.ServiceReport, error) {
	if len(reports) > api.MaxServingReports {
		return nil, &models.FieldError{Field: "serving", Msg: fmt.Sprintf("at most %d reports per batch", api.MaxServingReports)}
	}
	out := make([]models.ServiceReport, len(reports))
	for i, r := range reports {
		field := fmt.Sprintf("serving[%d]", i)
		bad := func(name, msg string) error { return &models.FieldError{Field: field + "." + name, Msg: msg} }
		switch {
		case r.TaskID <= 0:
			return nil, bad("task_id", "must be a task id")
		case !utf8.ValidString(r.Error) || !utf8.ValidString(r.Model) || len(r.Model) > 200:
			return nil, bad("model", "error and model must be valid UTF-8, the model at most 200 bytes")
		case r.Server != "" && !slices.Contains([]serving.Server{serving.VLLM, serving.SGLang, serving.TGI}, serving.Server(r.Server)):
			return nil, bad("server", "must be vllm, sglang or tgi")
		}
		for name, v := range map[string]float64{"requests": r.Requests, "prompt_tokens": r.PromptTokens,
			"generation_tokens": r.GenerationTokens, "running": r.Running} {
			if !(v >= 0 && v <= 1e15) {
				return nil, bad(name, "must be between 0 and 1e15")
			}
		}
		snap := serving.Snapshot{Server: serving.Server(r.Server), Model: r.Model, Requests: r.Requests,
			PromptTokens: r.PromptTokens, GenerationTokens: r.GenerationTokens, Running: r.Running}
		for name, h := range map[string]struct {
			wire *api.Histogram
			into **serving.Histogram
		}{"ttft": {r.TTFT, &snap.TTFT}, "e2e": {r.E2E, &snap.E2E}} {
			if h.wire == nil {
				continue
			}
			if len(h.wire.Bounds) > maxHistogramBounds {
				return nil, bad(name, fmt.Sprintf("at most %d bounds", maxHistogramBounds))
			}
			hist, err := serving.NewHistogram(h.wire.Bounds, h.wire.Counts, h.wire.Sum)
			if err != nil {
				return nil, bad(name, err.Error())
			}
			*h.into = hist
		}
		out[i] = models.ServiceReport{TaskID: r.TaskID, TS: r.TS, Error: r.Error, Restarted: r.Restarted, Served: snap}
	}
	return out, nil
}

// maxHistogramBounds bounds one histogram's buckets (vLLM's have about 20).
const maxHistogramBounds = 200
