package models

import (
	"context"
	"fmt"
	"time"
)

// TaskSpan is a task that ran, as a trace line: who asked for how many cards of which spec,
// when it was submitted, and when it started and ended; and what it declared: its estimated
// card-hours, max runtime, lane and priority.
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
}

// maxTaskSpans bounds one history export.
const maxTaskSpans = 2_000_000

// TaskSpans lists the tasks submitted in [since, until) that started and ended, by submit
// time and id: this deployment's own history in the shape of a replay trace.
func (s *Store) TaskSpans(ctx context.Context, since, until time.Time) ([]TaskSpan, error) {
	var out []TaskSpan
	err := s.db.WithContext(ctx).Table("tasks").
		Select("tasks.id, projects.name AS project, tasks.spec, tasks.gpus, tasks.submitted_at, tasks.started_at, tasks.ended_at, "+
			"tasks.est_gpu_hours, tasks.max_runtime_s, tasks.queue, tasks.priority").
		Joins("JOIN projects ON projects.id = tasks.project_id").
		Where("tasks.submitted_at >= ? AND tasks.submitted_at < ? AND tasks.started_at IS NOT NULL AND tasks.ended_at IS NOT NULL",
			UTC(since), UTC(until)).
		Order("tasks.submitted_at, tasks.id").Limit(maxTaskSpans).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: task spans: %w", err)
	}
	return out, nil
}
