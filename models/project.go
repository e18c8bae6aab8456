package models

import (
	"context"
	"fmt"
	"time"
)

// Projects returns every project by name order.
func (s *Store) Projects(ctx context.Context) ([]Project, error) {
	var out []Project
	if err := s.db.WithContext(ctx).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: projects: %w", err)
	}
	return out, nil
}

// EnsureProject returns the named project, creating it if needed.
func (s *Store) EnsureProject(ctx context.Context, name string, now time.Time) (Project, error) {
	if err := checkName("name", name, 100); err != nil {
		return Project{}, err
	}
	p := Project{Name: name, CreatedAt: UTC(now)}
	err := s.db.WithContext(ctx).Where(Project{Name: name}).Attrs(Project{CreatedAt: UTC(now)}).FirstOrCreate(&p).Error
	if err != nil {
		return Project{}, fmt.Errorf("models: ensure project %q: %w", name, err)
	}
	return p, nil
}

// ProjectByName returns the named project.
func (s *Store) ProjectByName(ctx context.Context, name string) (Project, error) {
	var p Project
	if err := s.db.WithContext(ctx).Scopes(textIs("name", name)).Take(&p).Error; err != nil {
		return p, notFound("project "+name, err)
	}
	return p, nil
}

// ProjectNames returns every project's name by id.
func (s *Store) ProjectNames(ctx context.Context) (map[int64]string, error) {
	projects, err := s.Projects(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[int64]string, len(projects))
	for _, p := range projects {
		names[p.ID] = p.Name
	}
	return names, nil
}

// ProjectByID returns a project.
func (s *Store) ProjectByID(ctx context.Context, id int64) (Project, error) {
	var p Project
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&p).Error; err != nil {
		return p, notFound(fmt.Sprintf("project %d", id), err)
	}
	return p, nil
}
