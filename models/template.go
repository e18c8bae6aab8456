package models

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// TaskTemplate is a project's saved task: what it runs and how, submitted again with
// overrides. Every change makes a new version (TaskTemplateVersion).
type TaskTemplate struct {
	ID          int64
	ProjectID   int64
	Name        string
	Description string
	// Version is the current version, 1 for a new template.
	Version int
	// Body is the TemplateBody, JSON.
	Body      string
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (TaskTemplate) TableName() string { return "task_templates" }

// Fields decodes the template's body.
func (t TaskTemplate) Fields() TemplateBody { return decodeBody(t.Body) }

// TaskTemplateVersion is one version of a template: who made it, when, the body it set and
// what changed from the version before.
type TaskTemplateVersion struct {
	ID          int64
	TemplateID  int64
	Version     int
	By          string
	At          time.Time
	Description string
	Body        string
	// Diff is the []FieldChange from the version before, JSON; empty list for version 1.
	Diff string
	// Restores is the earlier version this one made current again (a rollback); 0 for a
	// change of its own.
	Restores int
}

func (TaskTemplateVersion) TableName() string { return "task_template_versions" }

// Fields decodes the version's body.
func (v TaskTemplateVersion) Fields() TemplateBody { return decodeBody(v.Body) }

// Changes decodes the version's diff.
func (v TaskTemplateVersion) Changes() []FieldChange {
	var out []FieldChange
	json.Unmarshal([]byte(v.Diff), &out) // written by the store; always decodes
	return out
}

// TemplateBody is what a template fixes of the tasks submitted from it, as stored (JSON in
// TaskTemplate.Body). EnvNames are the variables a submit must give values for; values are
// never stored in a template. Tasks have no model tag, so templates have none either.
// api.TemplateBody is its form on the wire; a test in handlers holds the two equal.
type TemplateBody struct {
	GPUs        int        `json:"gpus"`
	Spec        string     `json:"spec"`
	Specs       []string   `json:"specs,omitempty"`
	Regions     []string   `json:"regions,omitempty"`
	Queue       string     `json:"queue"`
	Priority    string     `json:"priority"`
	EstGPUHours float64    `json:"est_gpu_hours"`
	MaxRuntimeS int64      `json:"max_runtime_s"`
	Command     []string   `json:"command"`
	EnvNames    []string   `json:"env_names"`
	Workdir     string     `json:"workdir"`
	Image       string     `json:"image"`
	DataCheck   *DataCheck `json:"data_check,omitempty"`
	// DataLocations is where the data is in each region (region → path or URI).
	DataLocations map[string]string `json:"data_locations,omitempty"`
	Deferrable    bool              `json:"deferrable"`
	// MaxAttempts and RerunOnFailure are its tasks' (see NewTask); 0 and false, the defaults,
	// are left out, so bodies saved before them read the same.
	MaxAttempts    int  `json:"max_attempts,omitempty"`
	RerunOnFailure bool `json:"rerun_on_failure,omitempty"`
	// MinInterNodeGbps, MinStorageMBps and AllowNoInterconnect are its tasks' (see
	// NewTask); absent for none.
	MinInterNodeGbps    int  `json:"min_inter_node_gbps,omitempty"`
	MinStorageMBps      int  `json:"min_storage_mbps,omitempty"`
	AllowNoInterconnect bool `json:"allow_no_interconnect,omitempty"`
	// Stages make the template a pipeline template: submitting it submits a pipeline of
	// these stages, and the fields above stay empty. Absent for a task template.
	Stages []TemplateStage `json:"stages,omitempty"`
}

// TemplateStage is one stage of a pipeline template: its name, the stages it follows (see
// NewStage), where it writes, and its task's fields (without stages of its own).
type TemplateStage struct {
	Name       string       `json:"name"`
	After      []string     `json:"after,omitempty"`
	AfterEnded []string     `json:"after_ended,omitempty"`
	Output     string       `json:"output,omitempty"`
	Task       TemplateBody `json:"task"`
}

// IsPipeline reports whether the body is a pipeline template's.
func (b TemplateBody) IsPipeline() bool { return len(b.Stages) > 0 }

// NewPipeline is the pipeline a pipeline template's body submits for project, named name,
// owned by owner: each stage's task named after the stage.
func (b TemplateBody) NewPipeline(project, name, owner string) NewPipeline {
	np := NewPipeline{Project: project, Name: name, Owner: owner, Stages: make([]NewStage, len(b.Stages))}
	for i, st := range b.Stages {
		np.Stages[i] = NewStage{Name: st.Name, After: st.After, AfterEnded: st.AfterEnded, Output: st.Output,
			Task: st.Task.NewTask(project, st.Name, owner, nil)}
	}
	return np
}

// NewTemplate is a template as created or changed.
type NewTemplate struct {
	ProjectID   int64
	Name        string
	Description string
	Body        TemplateBody
}

// FieldChange is one field a template version changed: its JSON name and its values before
// and after, as JSON.
type FieldChange struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// TemplateRow is a template with how many tasks were submitted from it.
type TemplateRow struct {
	TaskTemplate
	Uses int64
}

// SpecChoices is the specs the body accepts: Specs, else Spec alone, else none (any).
func (b TemplateBody) SpecChoices() []string {
	if len(b.Specs) > 0 {
		return b.Specs
	}
	if b.Spec != "" {
		return []string{b.Spec}
	}
	return nil
}

// NewTask is a submission from the body for project, named name, owned by owner, with the
// environment's values env (the names the body lists must all be there; the store does not
// check that, the caller does: see MissingEnv).
func (b TemplateBody) NewTask(project, name, owner string, env map[string]string) NewTask {
	nt := NewTask{Project: project, Name: name, Owner: owner, GPUs: b.GPUs, Spec: b.Spec, Specs: b.Specs, Regions: b.Regions, Queue: b.Queue,
		Priority: b.Priority, EstGPUHours: b.EstGPUHours, MaxRuntime: time.Duration(b.MaxRuntimeS) * time.Second,
		Command: b.Command, Env: env, Workdir: b.Workdir, Image: b.Image, Deferrable: b.Deferrable, DataReady: !b.WaitsForData(),
		DataLocations: b.DataLocations, MaxAttempts: b.MaxAttempts, RerunOnFailure: b.RerunOnFailure,
		MinInterNodeGbps: b.MinInterNodeGbps, MinStorageMBps: b.MinStorageMBps, AllowNoInterconnect: b.AllowNoInterconnect}
	if b.DataCheck != nil {
		nt.DataCheck = *b.DataCheck
	}
	return nt
}

// WaitsForData reports whether a task from the body waits for its data by default: it
// declares a data check, or a data location the readiness checks can look at.
func (b TemplateBody) WaitsForData() bool {
	return b.DataCheck != nil || slices.ContainsFunc(slices.Collect(maps.Values(b.DataLocations)), Checkable)
}

// MissingEnv returns the first of the body's env names env gives no value for, or "".
func (b TemplateBody) MissingEnv(env map[string]string) string {
	for _, n := range b.EnvNames {
		if _, ok := env[n]; !ok {
			return n
		}
	}
	return ""
}

func decodeBody(s string) TemplateBody {
	var b TemplateBody
	json.Unmarshal([]byte(s), &b) // written by the store; always decodes
	return b
}

// bodyDiff lists what differs between two versions: the description first, then the body's
// fields by name.
func bodyDiff(beforeDesc, afterDesc string, before, after TemplateBody) []FieldChange {
	out := []FieldChange{}
	if beforeDesc != afterDesc {
		b, _ := json.Marshal(beforeDesc)
		a, _ := json.Marshal(afterDesc)
		out = append(out, FieldChange{Field: "description", Before: string(b), After: string(a)})
	}
	bm, am := fieldsOf(before), fieldsOf(after)
	keys := make([]string, 0, len(am))
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if string(bm[k]) != string(am[k]) {
			out = append(out, FieldChange{Field: k, Before: string(bm[k]), After: string(am[k])})
		}
	}
	return out
}

func fieldsOf(b TemplateBody) map[string]json.RawMessage {
	raw, _ := json.Marshal(b) // plain data; never fails
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	return m
}
