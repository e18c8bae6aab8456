package demo

import (
	"context"
	"time"

	"kashi/models"
)

// Seeder is what Seed needs of the store.
type Seeder interface {
	EnsureProject(ctx context.Context, name string, now time.Time) (models.Project, error)
}

// Seed creates the demo's projects; running it again changes nothing.
func Seed(ctx context.Context, s Seeder, now time.Time) error {
	for _, p := range Projects {
		if _, err := s.EnsureProject(ctx, p, now); err != nil {
			return err
		}
	}
	return nil
}
