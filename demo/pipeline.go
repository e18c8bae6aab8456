package demo

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"kashi/agent/simgpu"
)

// The demo's pipelines (规格混用), submitted in its first seconds: PipelineNightly cleans on
// the RTX pool, pretrains on 16 A100 cards across two nodes and evaluates on the RTX pool;
// PipelineBroken's fine-tuning fails, so its evaluation is skipped and its page offers the
// rerun from the failed stage. Its stages all run on the RTX pool, which vision's quota does
// not bound: on the A100s its fine-tuning waited hours behind the task stream for vision's
// quota before it could fail.
const (
	PipelineNightly = "nightly-vit"
	PipelineBroken  = "ablation-lr"
)

// pipelineBody is a pipeline as the API takes it (the demo keeps off package api).
type pipelineBody struct {
	Project string      `json:"project"`
	Name    string      `json:"name"`
	Owner   string      `json:"owner"`
	Stages  []stageBody `json:"stages"`
}

type stageBody struct {
	Name        string   `json:"name"`
	After       []string `json:"after,omitempty"`
	Output      string   `json:"output,omitempty"`
	GPUs        int      `json:"gpus"`
	Spec        string   `json:"spec"`
	EstGPUHours float64  `json:"est_gpu_hours"`
	Command     []string `json:"command"`
	MaxAttempts int      `json:"max_attempts"`
}

// stage is one simulated stage of gpus cards of spec, running shape for run and exiting
// exit, after the stages named.
func stage(name, spec string, gpus int, shape simgpu.Shape, run time.Duration, exit int, after ...string) stageBody {
	return stageBody{Name: name, After: after, Output: "s3://lake/vision/" + name, GPUs: gpus, Spec: spec,
		EstGPUHours: float64(gpus) * run.Hours() * 1.2, Command: simgpu.Command(shape, run, exit), MaxAttempts: 1}
}

// showPipelines submits the demo's pipelines once the agents have registered, unless the
// database has them from an earlier run.
func (d *Demo) showPipelines(ctx context.Context) {
	if !sleep(ctx, 3*time.Second) {
		return
	}
	client := &http.Client{Timeout: 10 * time.Second}
	token := d.cfg.Tokens["member"]
	var have []struct {
		Name string `json:"name"`
	}
	if err := getJSON(ctx, client, d.cfg.Server+"/api/v1/pipelines?limit=500", token, &have); err != nil {
		d.cfg.Logger.Warn("demo pipelines", "err", err)
		return
	}
	for _, p := range []pipelineBody{
		{Project: "vision", Name: PipelineNightly, Owner: "member", Stages: []stageBody{
			stage("clean", "RTX4090-24G", 2, simgpu.Eval, 40*time.Minute, 0),
			stage("pretrain", "A100-80G", 16, simgpu.Train, 3*time.Hour, 0, "clean"),
			stage("evaluate", "RTX4090-24G", 2, simgpu.Eval, 30*time.Minute, 0, "pretrain")}},
		{Project: "vision", Name: PipelineBroken, Owner: "member", Stages: []stageBody{
			stage("clean", "RTX4090-24G", 1, simgpu.Eval, 20*time.Minute, 0),
			stage("finetune", "RTX4090-24G", 4, simgpu.Finetune, 30*time.Minute, 1, "clean"),
			stage("evaluate", "RTX4090-24G", 1, simgpu.Eval, 20*time.Minute, 0, "finetune")}},
	} {
		if slices.ContainsFunc(have, func(h struct {
			Name string `json:"name"`
		}) bool {
			return h.Name == p.Name
		}) {
			continue
		}
		if err := postJSON(ctx, client, d.cfg.Server+"/api/v1/pipelines", token, "", p, nil); err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("demo pipeline", "name", p.Name, "err", err)
		}
	}
}

// TemplateNightly is the demo's pipeline template, which a schedule submits every night at
// 22:00 in the server's time zone: clean, train and evaluate, all on the RTX pool (small, so
// that the nights do not crowd the task stream).
const TemplateNightly = "nightly-eval"

// showPipelineTemplate saves the demo's pipeline template as vision's lead and schedules it
// nightly, unless the database has it from an earlier run.
func (d *Demo) showPipelineTemplate(ctx context.Context) {
	if !sleep(ctx, 3*time.Second) {
		return
	}
	client := &http.Client{Timeout: 10 * time.Second}
	token := d.cfg.Tokens["lead"]
	var projects []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	if err := getJSON(ctx, client, d.cfg.Server+"/api/v1/projects", token, &projects); err != nil {
		d.cfg.Logger.Warn("demo pipeline template", "err", err)
		return
	}
	i := slices.IndexFunc(projects, func(p struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}) bool {
		return p.Name == "vision"
	})
	if i < 0 {
		return
	}
	templates := d.cfg.Server + "/api/v1/projects/" + strconv.FormatInt(projects[i].ID, 10) + "/templates"
	var have []struct {
		Name string `json:"name"`
	}
	if err := getJSON(ctx, client, templates, token, &have); err != nil {
		d.cfg.Logger.Warn("demo pipeline template", "err", err)
		return
	}
	for _, h := range have {
		if h.Name == TemplateNightly {
			return
		}
	}
	task := func(s stageBody) templateTask {
		return templateTask{GPUs: s.GPUs, Spec: s.Spec, EstGPUHours: s.EstGPUHours, Command: s.Command, MaxAttempts: s.MaxAttempts}
	}
	var stages []templateStage
	for _, s := range []stageBody{
		stage("clean", "RTX4090-24G", 1, simgpu.Eval, 20*time.Minute, 0),
		stage("train", "RTX4090-24G", 2, simgpu.Finetune, time.Hour, 0, "clean"),
		stage("evaluate", "RTX4090-24G", 1, simgpu.Eval, 20*time.Minute, 0, "train"),
	} {
		stages = append(stages, templateStage{Name: s.Name, After: s.After, Output: s.Output, Task: task(s)})
	}
	var tpl struct {
		ID int64 `json:"id"`
	}
	body := struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Stages      []templateStage `json:"stages"`
	}{TemplateNightly, "clean, train and evaluate every night", stages}
	if err := postJSON(ctx, client, templates, token, "", body, &tpl); err != nil {
		d.cfg.Logger.Warn("demo pipeline template", "err", err)
		return
	}
	zone := cmp.Or(d.cfg.TimeZone, "Asia/Shanghai")
	sched := map[string]any{"cron": "0 22 * * *", "time_zone": zone, "overlap": "skip"}
	if err := postJSON(ctx, client, d.cfg.Server+"/api/v1/templates/"+strconv.FormatInt(tpl.ID, 10)+"/schedules", token, "", sched, nil); err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("demo pipeline schedule", "err", err)
	}
}

// templateStage and templateTask are a pipeline template's stage as the template API takes
// it.
type templateStage struct {
	Name   string       `json:"name"`
	After  []string     `json:"after,omitempty"`
	Output string       `json:"output,omitempty"`
	Task   templateTask `json:"task"`
}

type templateTask struct {
	GPUs        int      `json:"gpus"`
	Spec        string   `json:"spec"`
	EstGPUHours float64  `json:"est_gpu_hours"`
	Command     []string `json:"command"`
	MaxAttempts int      `json:"max_attempts"`
}
