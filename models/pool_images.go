package models

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"
)

// MaxPrePull bounds the images a node is told to pull when it joins its pool.
const MaxPrePull = 5

// prePullTemplates bounds the templates read for PrePullImages.
const prePullTemplates = 100

// PrePullImages returns up to MaxPrePull distinct container images a node of the pool
// is likely to need soon: those of the tasks waiting for the pool's spec (or any spec), in
// submit order, then those of the templates (newest change first) of the projects with tasks
// waiting or running on that spec. A pool without such tasks gives none.
func (s *Store) PrePullImages(ctx context.Context, poolID int64) ([]string, error) {
	db := s.db.WithContext(ctx)
	var p Pool
	if err := db.Where("id = ?", poolID).Take(&p).Error; err != nil {
		return nil, notFound(fmt.Sprintf("pool %d", poolID), err)
	}
	forSpec := func() *gorm.DB { return db.Model(&Task{}).Where("spec IN ?", []string{p.Spec, ""}) }
	var queued []string
	err := forSpec().Where("state IN ? AND image <> ''", []string{TaskQueued, TaskWaitingData}).
		Order("id").Limit(prePullTemplates).Pluck("image", &queued).Error
	if err != nil {
		return nil, fmt.Errorf("models: images of pool %q: %w", p.Name, err)
	}
	var out []string
	add := func(image string) {
		if image != "" && len(out) < MaxPrePull && !slices.Contains(out, image) {
			out = append(out, image)
		}
	}
	for _, im := range queued {
		add(im)
	}
	var templates []TaskTemplate
	projects := forSpec().Select("project_id").Where("state IN ?", []string{TaskQueued, TaskWaitingData, TaskStarting, TaskRunning})
	err = db.Where("project_id IN (?)", projects).Order("updated_at DESC, id DESC").Limit(prePullTemplates).Find(&templates).Error
	if err != nil {
		return nil, fmt.Errorf("models: templates of pool %q: %w", p.Name, err)
	}
	for _, t := range templates {
		if b := t.Fields(); b.Spec == p.Spec || b.Spec == "" {
			add(b.Image)
		}
	}
	return out, nil
}
