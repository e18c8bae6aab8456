package models

import (
	"context"
	"fmt"
	"time"
)

// PipelineRow is a pipeline with its project's name.
type PipelineRow struct {
	Pipeline
	Project string
}

// StageRow is a stage with its current task's state and reason, when the tasks it submitted
// (every run) held cards, and the cards its task holds now. What that card time cost is the
// bills' (billing.PipelineBilled), read over the months HeldFrom to HeldTo span.
type StageRow struct {
	PipelineStage
	TaskState  string
	TaskReason string
	// HeldFrom is when its tasks were first given a card and HeldTo when they last gave one
	// back (now for cards still held); both zero when they never held one.
	HeldFrom, HeldTo time.Time `gorm:"-"`
	// Held is how many cards its tasks hold now.
	Held int `gorm:"-"`
}

// PipelineByID returns a pipeline with its project's name.
func (s *Store) PipelineByID(ctx context.Context, id int64) (PipelineRow, error) {
	var p PipelineRow
	err := s.db.WithContext(ctx).Table("pipelines").Select("pipelines.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = pipelines.project_id").Where("pipelines.id = ?", id).Take(&p).Error
	if err != nil {
		return p, notFound(fmt.Sprintf("pipeline %d", id), err)
	}
	return p, nil
}

// Pipelines returns the newest pipelines first, at most limit (1–500), of the projects
// projectIDs names (nil: every project).
func (s *Store) Pipelines(ctx context.Context, projectIDs []int64, limit int) ([]PipelineRow, error) {
	limit = min(max(limit, 1), 500)
	q := s.db.WithContext(ctx).Table("pipelines").Select("pipelines.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = pipelines.project_id")
	if projectIDs != nil {
		q = q.Where("pipelines.project_id IN ?", append([]int64{0}, projectIDs...))
	}
	var out []PipelineRow
	if err := q.Order("pipelines.submitted_at DESC, pipelines.id DESC").Limit(limit).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("models: pipelines: %w", err)
	}
	return out, nil
}

// PipelineStages returns a pipeline's stages in order, each with its task's state, when its
// tasks held cards, up to now, and the cards they hold now.
func (s *Store) PipelineStages(ctx context.Context, id int64, now time.Time) ([]StageRow, error) {
	now = UTC(now)
	db := s.db.WithContext(ctx)
	var out []StageRow
	err := db.Table("pipeline_stages").
		Select("pipeline_stages.*, COALESCE(tasks.state, '') AS task_state, COALESCE(tasks.reason, '') AS task_reason").
		Joins("LEFT JOIN tasks ON tasks.id = pipeline_stages.task_id").
		Where("pipeline_stages.pipeline_id = ?", id).Order("pipeline_stages.position").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: stages of pipeline %d: %w", id, err)
	}
	var spans []struct {
		StageID   int64
		StartedAt time.Time
		EndedAt   *time.Time
	}
	err = db.Table("allocations").Select("pipeline_tasks.stage_id, allocations.started_at, allocations.ended_at").
		Joins("JOIN pipeline_tasks ON pipeline_tasks.task_id = allocations.task_id").
		Where("pipeline_tasks.pipeline_id = ?", id).Scan(&spans).Error
	if err != nil {
		return nil, fmt.Errorf("models: cards of pipeline %d: %w", id, err)
	}
	at := map[int64]int{}
	for i := range out {
		at[out[i].ID] = i
	}
	for _, sp := range spans {
		i, ok := at[sp.StageID]
		if !ok {
			continue
		}
		end := now
		if sp.EndedAt != nil {
			end = *sp.EndedAt
		} else {
			out[i].Held++
		}
		st := &out[i]
		if st.HeldFrom.IsZero() || sp.StartedAt.Before(st.HeldFrom) {
			st.HeldFrom = UTC(sp.StartedAt)
		}
		if end.After(st.HeldTo) {
			st.HeldTo = UTC(end)
		}
	}
	return out, nil
}
