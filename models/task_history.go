package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// TaskSpan is a task that ran, as a trace line: who asked for how many cards of which spec,
// when it was submitted, and when it started and ended, and how it ended (State); what it
// declared: its estimated card-hours, max runtime, lane and priority; and, for a pipeline's
// stage, the stage's name and the tasks of the stages it follows once they succeeded
// (Parents, among the spans read; an "after ended" edge is not one: a replay's parent must
// succeed).
type TaskSpan struct {
	ID          int64
	Project     string
	Spec        string
	GPUs        int `gorm:"column:gpus"`
	SubmittedAt time.Time
	StartedAt   time.Time
	EndedAt     time.Time
	EstGPUHours float64 `gorm:"column:est_gpu_hours"`
	MaxRuntimeS int64
	Queue       string
	Priority    string
	State       string
	Stage       string  `gorm:"-"`
	Parents     []int64 `gorm:"-"`
}

// maxTaskSpans bounds one history export.
const maxTaskSpans = 2_000_000

// taskSpansSQL reads the tasks submitted in [?, ?) that started and ended, at most ? of them,
// through the index of their submit time.
const taskSpansSQL = `SELECT tasks.id, projects.name AS project, tasks.spec, tasks.gpus, tasks.submitted_at,
	tasks.started_at, tasks.ended_at, tasks.est_gpu_hours, tasks.max_runtime_s, tasks.queue, tasks.priority, tasks.state
FROM tasks JOIN projects ON projects.id = tasks.project_id
WHERE tasks.submitted_at >= ? AND tasks.submitted_at < ? AND tasks.started_at IS NOT NULL AND tasks.ended_at IS NOT NULL
ORDER BY tasks.submitted_at, tasks.id LIMIT ?`

// TaskSpans lists the tasks submitted in [since, until) that started and ended, by submit
// time and id: this deployment's own history in the shape of a replay trace.
func (s *Store) TaskSpans(ctx context.Context, since, until time.Time) ([]TaskSpan, error) {
	var out []TaskSpan
	if err := s.db.WithContext(ctx).Raw(taskSpansSQL, UTC(since), UTC(until), maxTaskSpans).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("models: task spans: %w", err)
	}
	if err := s.spanStages(ctx, out, since, until); err != nil {
		return nil, fmt.Errorf("models: task spans: %w", err)
	}
	return out, nil
}

// spanStages names the stage of each span a pipeline submitted and links it to its parents'
// tasks: for each stage it follows once succeeded, that stage's task of the same run, or of
// the latest run before (a pipeline rerun from a failed stage keeps its earlier stages'
// tasks), when that task is among the spans.
func (s *Store) spanStages(ctx context.Context, spans []TaskSpan, since, until time.Time) error {
	type link struct {
		TaskID, PipelineID int64
		Run                int
		Name, After        string
	}
	var links []link
	err := s.db.WithContext(ctx).Table("pipeline_tasks").
		Select("pipeline_tasks.task_id, pipeline_tasks.pipeline_id, pipeline_tasks.run, pipeline_stages.name, pipeline_stages.after").
		Joins("JOIN pipeline_stages ON pipeline_stages.id = pipeline_tasks.stage_id").
		Joins("JOIN tasks ON tasks.id = pipeline_tasks.task_id").
		Where("tasks.submitted_at >= ? AND tasks.submitted_at < ?", UTC(since), UTC(until)).
		Order("pipeline_tasks.run").Scan(&links).Error
	if err != nil || len(links) == 0 {
		return err
	}
	at := make(map[int64]int, len(spans))
	for i, sp := range spans {
		at[sp.ID] = i
	}
	type stageKey struct {
		pipeline int64
		name     string
	}
	runs := map[stageKey][]link{} // each stage's tasks, by run
	for _, l := range links {
		k := stageKey{l.PipelineID, l.Name}
		runs[k] = append(runs[k], l)
	}
	for _, l := range links {
		i, ok := at[l.TaskID]
		if !ok {
			continue
		}
		spans[i].Stage = l.Name
		var after []string
		json.Unmarshal([]byte(l.After), &after) // written by the store; always decodes
		for _, name := range after {
			var parent *link
			for j, p := range runs[stageKey{l.PipelineID, name}] {
				if p.Run <= l.Run {
					parent = &runs[stageKey{l.PipelineID, name}][j]
				}
			}
			if parent == nil {
				continue
			}
			if _, ok := at[parent.TaskID]; ok {
				spans[i].Parents = append(spans[i].Parents, parent.TaskID)
			}
		}
	}
	return nil
}
