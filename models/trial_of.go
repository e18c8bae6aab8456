package models

import (
	"context"
	"fmt"
)

// finishedTrials selects the trials that ran and whose runs have all ended.
const finishedTrials = "EXISTS (SELECT 1 FROM tasks r WHERE r.trial_id = trials.id) AND " +
	"NOT EXISTS (SELECT 1 FROM tasks r WHERE r.trial_id = trials.id AND r.ended_at IS NULL)"

// TrialsOf returns, for each task of ids that has one, the latest finished trial of it (every
// run ended): a trial in its project under its name (a trial takes the name of the task it
// tries, and its full run the trial's), or one whose runs came from the task's template. A
// trial's own runs have none.
func (s *Store) TrialsOf(ctx context.Context, ids []int64) (map[int64]Trial, error) {
	out := map[int64]Trial{}
	if len(ids) == 0 {
		return out, nil
	}
	var tasks []struct {
		ID, ProjectID int64
		Name          string
		TemplateID    *int64
	}
	db := s.db.WithContext(ctx)
	if err := db.Table("tasks").Select("id, project_id, name, template_id").
		Where("id IN ? AND trial_id IS NULL", ids).Scan(&tasks).Error; err != nil {
		return nil, fmt.Errorf("models: trials of tasks: %w", err)
	}
	if len(tasks) == 0 {
		return out, nil
	}
	projects := make([]int64, 0, len(tasks))
	for _, t := range tasks {
		projects = append(projects, t.ProjectID)
	}
	var trials []Trial
	if err := db.Where("project_id IN ? AND "+finishedTrials, projects).Order("id DESC").Find(&trials).Error; err != nil {
		return nil, fmt.Errorf("models: trials of tasks: %w", err)
	}
	if len(trials) == 0 {
		return out, nil
	}
	tids := make([]int64, len(trials))
	for i, tr := range trials {
		tids[i] = tr.ID
	}
	var tpls []struct{ TrialID, TemplateID int64 }
	if err := db.Table("tasks").Select("trial_id, MAX(template_id) AS template_id").
		Where("trial_id IN ? AND template_id IS NOT NULL", tids).Group("trial_id").Scan(&tpls).Error; err != nil {
		return nil, fmt.Errorf("models: trials of tasks: %w", err)
	}
	template := make(map[int64]int64, len(tpls))
	for _, t := range tpls {
		template[t.TrialID] = t.TemplateID
	}
	for _, t := range tasks {
		for _, tr := range trials { // newest first
			if tr.ProjectID == t.ProjectID && (tr.Name == t.Name || (t.TemplateID != nil && template[tr.ID] == *t.TemplateID)) {
				out[t.ID] = tr
				break
			}
		}
	}
	return out, nil
}

// TemplateTrial returns the latest finished trial (every run ended) whose runs came from
// template id; ok is false without one.
func (s *Store) TemplateTrial(ctx context.Context, id int64) (tr Trial, ok bool, err error) {
	res := s.db.WithContext(ctx).Where("id IN (SELECT trial_id FROM tasks WHERE template_id = ? AND trial_id IS NOT NULL) AND "+
		finishedTrials, id).Order("id DESC").Limit(1).Find(&tr)
	if res.Error != nil {
		return Trial{}, false, fmt.Errorf("models: trial of template %d: %w", id, res.Error)
	}
	return tr, res.RowsAffected == 1, nil
}
