package handlers

import (
	"fmt"

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

func readingsOf(req api.SamplesRequest) ([]models.Reading, error) {
	if len(req.Samples) > api.MaxSamplesPerBatch {
		return nil, &models.FieldError{Field: "samples",
			Msg: fmt.Sprintf("at most %d samples per batch, got %d", api.MaxSamplesPerBatch, len(req.Samples))}
	}
	out := make([]models.Reading, len(req.Samples))
	for i, s := range req.Samples {
		out[i] = models.Reading{UUID: s.UUID, TS: s.TS, MemoryUsedMiB: s.MemoryUsedMiB, UtilPct: s.UtilPct,
			TempC: s.TempC, PowerW: s.PowerW}
		for _, p := range s.Processes {
			out[i].Processes = append(out[i].Processes, models.ProcessReading(p))
		}
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

func reportOf(req api.TaskStatusRequest) models.TaskReport { return models.TaskReport(req) }
