package tasks

import (
	"cmp"
	"encoding/json"
	"time"

	"kashi/models"
)

// taskRequest is the body of POST /api/v1/tasks.
type taskRequest struct {
	Project     string            `json:"project"`
	Name        string            `json:"name"`
	Owner       string            `json:"owner"`
	GPUs        int               `json:"gpus"`
	Spec        string            `json:"spec"`
	Specs       []string          `json:"specs"`
	Regions     []string          `json:"regions"`
	Queue       string            `json:"queue"`
	Priority    string            `json:"priority"`
	EstGPUHours float64           `json:"est_gpu_hours"`
	MaxRuntimeS int64             `json:"max_runtime_s"`
	Command     []string          `json:"command"`
	Env         map[string]string `json:"env"`
	// SecretEnv names the variables of Env stored encrypted at rest.
	SecretEnv []string          `json:"secret_env"`
	Workdir   string            `json:"workdir"`
	Image     string            `json:"image"`
	DataReady bool              `json:"data_ready"`
	DataCheck *models.DataCheck `json:"data_check"`
	// DataLocations is where the data is in each region: region → path or URI.
	DataLocations map[string]string `json:"data_locations"`
	Deferrable    bool              `json:"deferrable"`
	// Template is the template whose fields the request starts from; 0 for none.
	Template int64 `json:"template"`
	// Kind "service" submits an inference service: Model, Replicas, MetricsPort, MetricsPath
	// and HealthPath describe it.
	Kind        string `json:"kind"`
	Model       string `json:"model"`
	Replicas    int    `json:"replicas"`
	MetricsPort int    `json:"metrics_port"`
	MetricsPath string `json:"metrics_path"`
	HealthPath  string `json:"health_path"`
	// TTFTTargetMS is a service's p95 time-to-first-token target; 0 for none.
	TTFTTargetMS int `json:"ttft_target_ms"`
}

// newTask turns a request into the store's input, with defaults for class and priority.
func (r taskRequest) newTask(key string) models.NewTask {
	nt := models.NewTask{Project: r.Project, Name: r.Name, Owner: r.Owner, GPUs: r.GPUs, Spec: r.Spec, Specs: r.Specs,
		Regions: r.Regions, Queue: r.Queue,
		Priority: r.Priority, EstGPUHours: r.EstGPUHours, Command: r.Command, Env: r.Env, SecretEnv: r.SecretEnv, Workdir: r.Workdir, Image: r.Image,
		DataReady: r.DataReady, DataLocations: r.DataLocations, Deferrable: r.Deferrable, IdempotencyKey: key, Kind: r.Kind,
		Service: models.ServiceSpec{Model: r.Model, Replicas: r.Replicas, MetricsPort: r.MetricsPort, MetricsPath: r.MetricsPath,
			HealthPath: r.HealthPath, TTFTTargetMS: r.TTFTTargetMS}}
	if r.MaxRuntimeS > 0 && r.MaxRuntimeS < int64(1<<62/time.Second) {
		nt.MaxRuntime = time.Duration(r.MaxRuntimeS) * time.Second
	} else if r.MaxRuntimeS != 0 {
		nt.MaxRuntime = -1 // refused by the store with the field named
	}
	if r.DataCheck != nil {
		nt.DataCheck = *r.DataCheck
	}
	if nt.Queue == "" {
		nt.Queue = models.QueueLong
	}
	if nt.Priority == "" {
		nt.Priority = models.PriorityNormal
	}
	return nt
}

// taskJSON is a task as the API shows it (DESIGN.md, API surface).
type taskJSON struct {
	ID      int64  `json:"id"`
	Project string `json:"project"`
	Name    string `json:"name"`
	Owner   string `json:"owner"`
	GPUs    int    `json:"gpus"`
	Spec    string `json:"spec"`
	// Specs and Regions are the specs and regions the task accepts, when it names several.
	Specs       []string `json:"specs,omitempty"`
	Regions     []string `json:"regions,omitempty"`
	Queue       string   `json:"queue"`
	Priority    string   `json:"priority"`
	EstGPUHours float64  `json:"est_gpu_hours"`
	MaxRuntimeS int64    `json:"max_runtime_s"`
	Command     []string `json:"command"`
	// EnvNames are the names of the task's environment; values are never shown after submit.
	EnvNames  []string          `json:"env_names"`
	Workdir   string            `json:"workdir"`
	Image     string            `json:"image"`
	DataReady bool              `json:"data_ready"`
	DataCheck *models.DataCheck `json:"data_check"`
	// DataLocations is where the data is in each region; the node is told its region's.
	DataLocations map[string]string `json:"data_locations,omitempty"`
	Deferrable    bool              `json:"deferrable"`
	State         string            `json:"state"`
	Reason        string            `json:"reason"`
	SubmittedAt   time.Time         `json:"submitted_at"`
	StartedAt     *time.Time        `json:"started_at"`
	EndedAt       *time.Time        `json:"ended_at"`
	ExitCode      *int              `json:"exit_code"`
	OutputUnits   int64             `json:"output_units"`
	OutputUnit    string            `json:"output_unit"`
	// LastCheckpointAt is the task's last reported checkpoint.
	LastCheckpointAt *time.Time `json:"last_checkpoint_at"`
	// TemplateID is the template the task was submitted from, at TemplateVersion.
	TemplateID      *int64 `json:"template_id"`
	TemplateVersion int    `json:"template_version"`
	// Kind is "batch" or "service"; a service's replica also shows its model, service (the
	// id of its first replica), replicas and metrics endpoint.
	Kind         string `json:"kind"`
	Model        string `json:"model,omitempty"`
	ServiceID    *int64 `json:"service_id,omitempty"`
	Replicas     int    `json:"replicas,omitempty"`
	MetricsPort  int    `json:"metrics_port,omitempty"`
	MetricsPath  string `json:"metrics_path,omitempty"`
	HealthPath   string `json:"health_path,omitempty"`
	TTFTTargetMS int    `json:"ttft_target_ms,omitempty"`
}

// toTaskJSON is a task as its project's members see it.
func toTaskJSON(t models.TaskRow) taskJSON {
	out := taskJSON{ID: t.ID, Project: t.Project, Name: t.Name, Owner: t.Owner, GPUs: t.GPUs, Spec: t.Spec,
		Specs: t.SpecList(), Regions: t.RegionList(), Queue: t.Queue,
		Priority: t.Priority, EstGPUHours: t.EstGPUHours, MaxRuntimeS: t.MaxRuntimeS, Workdir: t.Workdir, Image: t.Image,
		DataReady: t.DataReady, DataLocations: t.DataLocationMap(), Deferrable: t.Deferrable, State: t.State, Reason: t.Reason, SubmittedAt: t.SubmittedAt,
		StartedAt: t.StartedAt, EndedAt: t.EndedAt, ExitCode: t.ExitCode, OutputUnits: t.OutputUnits,
		OutputUnit: t.OutputUnit, LastCheckpointAt: t.LastCheckpointAt, TemplateID: t.TemplateID, TemplateVersion: t.TemplateVersion}
	out.Kind = cmp.Or(t.Kind, models.TaskKindBatch)
	if t.Service() {
		out.Model, out.ServiceID, out.Replicas, out.MetricsPort, out.MetricsPath = t.Model, t.ServiceID, t.Replicas, t.MetricsPort, t.MetricsPath
		out.HealthPath, out.TTFTTargetMS = t.HealthPath, t.TTFTTargetMS
	}
	// Stored values were validated and encoded by the store; they always decode.
	json.Unmarshal([]byte(t.Command), &out.Command)
	out.EnvNames = models.EnvNames(t.Env)
	if t.DataCheck != "" {
		out.DataCheck = new(models.DataCheck)
		json.Unmarshal([]byte(t.DataCheck), out.DataCheck)
	}
	return out
}

// redacted is the task as someone outside its project sees it in the queue: what it asks
// for and where it stands, without how it runs.
func (t taskJSON) redacted() taskJSON {
	t.Command, t.EnvNames, t.Workdir, t.DataCheck, t.DataLocations = nil, nil, "", nil, nil
	return t
}
