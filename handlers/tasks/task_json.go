package tasks

import (
	"cmp"
	"encoding/json"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/phrase"
)

// newTask turns a request into the store's input, with defaults for class and priority.
func newTask(r api.TaskRequest, key string) models.NewTask {
	nt := models.NewTask{Project: r.Project, Name: r.Name, Owner: r.Owner, GPUs: r.GPUs, Spec: r.Spec, Specs: r.Specs,
		Regions: r.Regions, Queue: r.Queue,
		Priority: r.Priority, EstGPUHours: r.EstGPUHours, Command: r.Command, Env: r.Env, SecretEnv: r.SecretEnv, Workdir: r.Workdir, Image: r.Image,
		DataReady: dataReady(r), DataLocations: r.DataLocations, Deferrable: r.Deferrable, IdempotencyKey: key, Kind: r.Kind,
		Service: models.ServiceSpec{Model: r.Model, Replicas: r.Replicas, MetricsPort: r.MetricsPort, MetricsPath: r.MetricsPath,
			HealthPath: r.HealthPath, TTFTTargetMS: r.TTFTTargetMS},
		MaxAttempts: r.MaxAttempts, RerunOnFailure: r.RerunOnFailure != nil && *r.RerunOnFailure,
		MinInterNodeGbps: r.MinInterNodeGbps, MinStorageMBps: r.MinStorageMBps, AllowNoInterconnect: r.AllowNoInterconnect != nil && *r.AllowNoInterconnect}
	if r.MaxRuntimeS > 0 && r.MaxRuntimeS < int64(1<<62/time.Second) {
		nt.MaxRuntime = time.Duration(r.MaxRuntimeS) * time.Second
	} else if r.MaxRuntimeS != 0 {
		nt.MaxRuntime = -1 // refused by the store with the field named
	}
	if r.DataCheck != nil {
		nt.DataCheck = models.DataCheck(*r.DataCheck)
	}
	if nt.Queue == "" {
		nt.Queue = models.QueueLong
	}
	if nt.Priority == "" {
		nt.Priority = models.PriorityNormal
	}
	return nt
}

// dataReady is the request's data_ready, and when absent the default every way of submitting
// shares (the CLI, the form, templates, trials): ready unless the task names a data check or
// a data location the readiness checks can look at, which it then waits for.
func dataReady(r api.TaskRequest) bool {
	if r.DataReady != nil {
		return *r.DataReady
	}
	body := models.TemplateBody{DataLocations: r.DataLocations}
	if r.DataCheck != nil {
		body.DataCheck = &models.DataCheck{}
	}
	return !body.WaitsForData()
}

// taskJSON is a task as its project's members see it: as stored, its reason in l's language
// with its codes (reasonJSON), and how long its data check has gone without an answer
// (models.Task.DataCheckSilence) now.
func (h *Handler) taskJSON(l phrase.Locale, t models.TaskRow) api.Task {
	out := taskFields(t)
	out.Reason, out.ReasonCodes = reasonJSON(l, t.Reason)
	out.DataCheckSilentS = int64(t.DataCheckSilence(h.Now()) / time.Second)
	return out
}

// taskFields are a task's fields as stored, in the API's form (its reason as recorded).
func taskFields(t models.TaskRow) api.Task {
	out := api.Task{ID: t.ID, Project: t.Project, Name: t.Name, Owner: t.Owner, GPUs: t.GPUs, Spec: t.Spec,
		Specs: t.SpecList(), Regions: t.RegionList(), Queue: t.Queue,
		Priority: t.Priority, EstGPUHours: t.EstGPUHours, MaxRuntimeS: t.MaxRuntimeS, Workdir: t.Workdir, Image: t.Image,
		DataReady: t.DataReady, DataLocations: t.DataLocationMap(), Deferrable: t.Deferrable, State: api.TaskState(t.State), Reason: t.Reason, SubmittedAt: t.SubmittedAt,
		StartedAt: t.StartedAt, EndedAt: t.EndedAt, ExitCode: t.ExitCode, OutputUnits: t.OutputUnits,
		OutputUnit: t.OutputUnit, LastCheckpointAt: t.LastCheckpointAt, TemplateID: t.TemplateID, TemplateVersion: t.TemplateVersion,
		DataCheckedAt: t.DataCheckedAt, LastCheckpoint: t.LastCheckpoint, Attempt: max(t.Attempt, 1), MaxAttempts: max(t.MaxAttempts, 1),
		RerunOnFailure: t.RerunOnFailure, MinInterNodeGbps: t.MinInterNodeGbps, MinStorageMBps: t.MinStorageMBps,
		AllowNoInterconnect: t.AllowNoInterconnect, TrialID: t.TrialID}
	out.Kind = cmp.Or(t.Kind, models.TaskKindBatch)
	if t.Service() {
		out.Model, out.ServiceID, out.Replicas, out.MetricsPort, out.MetricsPath = t.Model, t.ServiceID, t.Replicas, t.MetricsPort, t.MetricsPath
		out.HealthPath, out.TTFTTargetMS = t.HealthPath, t.TTFTTargetMS
	}
	// Stored values were validated and encoded by the store; they always decode.
	json.Unmarshal([]byte(t.Command), &out.Command)
	out.EnvNames = models.EnvNames(t.Env)
	if t.DataCheck != "" {
		out.DataCheck = new(api.DataCheck)
		json.Unmarshal([]byte(t.DataCheck), out.DataCheck)
	}
	return out
}

// redacted is the task as someone outside its project sees it in the queue: what it asks
// for and where it stands, without how it runs (nor where it keeps its checkpoints).
func redacted(t api.Task) api.Task {
	t.Command, t.EnvNames, t.Workdir, t.DataCheck, t.DataLocations, t.LastCheckpoint = nil, nil, "", nil, nil, ""
	return t
}
